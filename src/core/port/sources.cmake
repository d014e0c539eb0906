target_sources(accelopt_core PRIVATE
  port/kernelport.cpp port/kernelport.h)
