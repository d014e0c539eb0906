# The profile of an evaluation, outward (the Chrome trace-event export of its timeline) and inward (a device
# profile exported from Neuron Explorer).
target_sources(accelopt_core PRIVATE
  profile/chrometrace.cpp profile/chrometrace.h)
target_sources(accelopt_core PRIVATE
  profile/explorerprofileimport.cpp profile/explorerprofileimport.h)
