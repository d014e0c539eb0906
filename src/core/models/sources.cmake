# QtCore item models over the stores and the search's events, shared by the workbench and the tests (the
# way hotspot's src/models are): no widgets, no colours; views paint from ModelRoles.
target_sources(accelopt_core PRIVATE
  models/modelroles.h
  models/searchstate.cpp models/searchstate.h
  models/candidatetext.cpp models/candidatetext.h
  models/costtext.cpp models/costtext.h)
target_sources(accelopt_core PRIVATE
  models/candidatetablemodel.cpp models/candidatetablemodel.h
  models/candidatetreemodel.cpp models/candidatetreemodel.h)
target_sources(accelopt_core PRIVATE
  models/iterationmodel.cpp models/iterationmodel.h
  models/sessionlistmodel.cpp models/sessionlistmodel.h)
target_sources(accelopt_core PRIVATE
  models/benchmarklistmodel.cpp models/benchmarklistmodel.h)
target_sources(accelopt_core PRIVATE
  models/experiencelistmodel.cpp models/experiencelistmodel.h)
