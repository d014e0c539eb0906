target_sources(accelopt_core PRIVATE
  common/appsettings.h
  common/buildinfo.cpp common/buildinfo.h
  common/datapaths.cpp common/datapaths.h
  common/jsontext.cpp common/jsontext.h
  common/logcategories.cpp common/logcategories.h
  common/loghub.cpp common/loghub.h
  common/privatefiles.cpp common/privatefiles.h
  common/recentfiles.cpp common/recentfiles.h
  common/regularfile.cpp common/regularfile.h)
