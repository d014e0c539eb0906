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
  store/statement.cpp store/statement.h
  store/workspaceschema.cpp store/workspaceschema.h)
