target_sources(accelopt_core PRIVATE
  search/searchconfig.cpp search/searchconfig.h)
target_sources(accelopt_core PRIVATE
  search/kernelport.cpp search/kernelport.h
  search/taskcheck.cpp search/taskcheck.h
  search/taskcreation.cpp search/taskcreation.h)
target_sources(accelopt_core PRIVATE
  search/selection.cpp search/selection.h)
target_sources(accelopt_core PRIVATE
  search/stoprules.cpp search/stoprules.h)
target_sources(accelopt_core PRIVATE
  search/beamsearch.cpp search/beamsearch.h
  search/searchevent.cpp search/searchevent.h
  search/optimizationrun.cpp search/optimizationrun.h
  search/pairsummary.cpp search/pairsummary.h
  search/taskdetector.cpp search/taskdetector.h)
target_sources(accelopt_core PRIVATE
  search/resumepoint.cpp search/resumepoint.h search/searchtask.h)
