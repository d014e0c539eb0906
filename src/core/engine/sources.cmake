target_sources(accelopt_core PRIVATE
  engine/engine.cpp engine/engine.h
  engine/memoryservice.cpp engine/memoryservice.h
  engine/settingsservice.cpp engine/settingsservice.h)
