target_sources(accelopt_core PRIVATE
  store/database.cpp store/database.h
  store/databasefilecheck.cpp store/databasefilecheck.h
  store/databasesetuplock.cpp store/databasesetuplock.h
  store/databaseschema.h
  store/migrationstep.h
  store/planrecord.h
  store/schemainventory.cpp store/schemainventory.h
  store/sessionlock.cpp store/sessionlock.h
  store/sessionrecord.h
  store/sessionsummary.h
  store/sessionsnapshot.cpp store/sessionsnapshot.h
  store/sessionstore.cpp store/sessionstore.h
  store/sessionstatistics.cpp store/sessionstatistics.h
  store/calibrationquery.cpp store/calibrationquery.h
  store/columnlist.h store/sqlvalues.cpp store/sqlvalues.h
  store/sessiontable.cpp store/sessiontable.h
  store/plantable.cpp store/plantable.h
  store/candidatetable.cpp store/candidatetable.h
  store/evaluationtable.cpp store/evaluationtable.h
  store/llmcalltable.cpp store/llmcalltable.h
  store/resumestep.cpp store/resumestep.h
  store/statement.cpp store/statement.h
  store/workspaceschema.cpp store/workspaceschema.h)
