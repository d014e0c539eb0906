target_sources(accelopt_core PRIVATE
  memory/experiencebrowser.cpp memory/experiencebrowser.h
  memory/experiencejson.cpp memory/experiencejson.h
  memory/experiencepage.h memory/experiencepagerequest.h memory/experiencerow.h memory/experiencesort.h
  memory/experiencerecord.h
  memory/experiencestore.cpp memory/experiencestore.h
  memory/ftsquery.cpp memory/ftsquery.h
  memory/memoryfilter.h
  memory/memoryschema.cpp memory/memoryschema.h
  memory/pairsummary.cpp memory/pairsummary.h
  memory/retrievalcandidates.cpp memory/retrievalcandidates.h
  memory/retrievalpolicy.cpp memory/retrievalpolicy.h
  memory/retrievalrecord.h
  memory/termrarity.cpp memory/termrarity.h)
