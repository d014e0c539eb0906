# The profile of an evaluation, outward: the Chrome trace-event export of its timeline.
target_sources(accelopt_core PRIVATE
  profile/chrometrace.cpp profile/chrometrace.h)
