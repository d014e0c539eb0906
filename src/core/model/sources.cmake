target_sources(accelopt_core PRIVATE
  model/kernelfile.cpp model/kernelfile.h
  model/taskcatalog.cpp model/taskcatalog.h)
