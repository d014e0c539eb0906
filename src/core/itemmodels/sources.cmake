# QtCore item models over the stores and the search's events, shared by the workbench and the tests (the
# way hotspot's src/models are): no widgets, no colours; views paint from ModelRoles.
target_sources(accelopt_core PRIVATE
  itemmodels/modelroles.h
  itemmodels/searchstate.cpp itemmodels/searchstate.h
  itemmodels/candidatetext.cpp itemmodels/candidatetext.h
  itemmodels/costtext.cpp itemmodels/costtext.h)
target_sources(accelopt_core PRIVATE
  itemmodels/candidatetablemodel.cpp itemmodels/candidatetablemodel.h
  itemmodels/candidatetreemodel.cpp itemmodels/candidatetreemodel.h)
target_sources(accelopt_core PRIVATE
  itemmodels/iterationmodel.cpp itemmodels/iterationmodel.h
  itemmodels/sessionlistmodel.cpp itemmodels/sessionlistmodel.h)
target_sources(accelopt_core PRIVATE
  itemmodels/benchmarklistmodel.cpp itemmodels/benchmarklistmodel.h)
target_sources(accelopt_core PRIVATE
  itemmodels/experiencelistmodel.cpp itemmodels/experiencelistmodel.h)
