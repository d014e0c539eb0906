target_sources(accelopt_core PRIVATE
  engine/engine.cpp engine/engine.h)
