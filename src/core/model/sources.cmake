target_sources(accelopt_core PRIVATE
  model/kernelfile.cpp model/kernelfile.h
  model/targets.cpp model/targets.h
  model/nkigeneration.cpp model/nkigeneration.h
  model/taskcatalog.cpp model/taskcatalog.h)
target_sources(accelopt_core PRIVATE
  model/estimateexplanation.cpp model/estimateexplanation.h
  model/evalprofile.cpp model/evalprofile.h
  model/evalrequest.cpp model/evalrequest.h
  model/evalstatus.cpp model/evalstatus.h
  model/evaluation.cpp model/evaluation.h)
target_sources(accelopt_core PRIVATE
  model/experience.h
  model/plan.h)
target_sources(accelopt_core PRIVATE
  model/candidate.h
  model/kernelnormalizer.cpp model/kernelnormalizer.h)
target_sources(accelopt_core PRIVATE
  model/tasksources.cpp model/tasksources.h
  model/tasklocations.cpp model/tasklocations.h
  model/kernelfunctions.cpp model/kernelfunctions.h
  model/taskdraft.cpp model/taskdraft.h
  model/datasetlayout.cpp model/datasetlayout.h
  model/taskcheckstamp.cpp model/taskcheckstamp.h)
target_sources(accelopt_core PRIVATE
  model/calibration.cpp model/calibration.h)
