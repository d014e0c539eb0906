target_sources(accelopt_core PRIVATE
  memory/experiencejson.cpp memory/experiencejson.h
  memory/experiencerecord.h
  memory/experiencestore.cpp memory/experiencestore.h
  memory/ftsquery.cpp memory/ftsquery.h
  memory/memoryschema.cpp memory/memoryschema.h
  memory/retrievalcandidates.cpp memory/retrievalcandidates.h
  memory/retrievalpolicy.cpp memory/retrievalpolicy.h
  memory/retrievalrecord.h
  memory/termrarity.cpp memory/termrarity.h)
