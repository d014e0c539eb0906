target_sources(accelopt_core PRIVATE
  study/armspec.cpp study/armspec.h
  study/runmeasure.cpp study/runmeasure.h
  study/studybudget.cpp study/studybudget.h
  study/studyresult.cpp study/studyresult.h
  study/studyrunner.cpp study/studyrunner.h
  study/studystate.cpp study/studystate.h)
