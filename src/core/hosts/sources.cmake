target_sources(accelopt_core PRIVATE
  hosts/host.cpp hosts/host.h
  hosts/hostconfig.cpp hosts/hostconfig.h
  hosts/hostfactory.cpp hosts/hostfactory.h
  hosts/hostpool.cpp hosts/hostpool.h
  hosts/hostprobe.cpp hosts/hostprobe.h
  hosts/hostregistry.cpp hosts/hostregistry.h
  hosts/localhost.cpp hosts/localhost.h
  hosts/runnerclient.cpp hosts/runnerclient.h
  hosts/runnerenvironment.cpp hosts/runnerenvironment.h
  hosts/slurmhost.cpp hosts/slurmhost.h)
target_sources(accelopt_core PRIVATE
  hosts/runnerbundle.cpp hosts/runnerbundle.h
  hosts/sshchanneldevice.cpp hosts/sshchanneldevice.h
  hosts/sshconnection.cpp hosts/sshconnection.h
  hosts/sshhandles.h
  hosts/sshhost.cpp hosts/sshhost.h
  hosts/sshprompter.cpp hosts/sshprompter.h)
