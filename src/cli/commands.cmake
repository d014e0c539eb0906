target_sources(accelopt PRIVATE benchcommand.cpp benchcommand.h)
target_sources(accelopt PRIVATE suitecommand.cpp suitecommand.h)
target_sources(accelopt PRIVATE evalbatch.cpp evalbatch.h)
target_sources(accelopt PRIVATE hostscommand.cpp hostscommand.h clisshprompter.cpp clisshprompter.h)
