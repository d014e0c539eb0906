target_sources(accelopt_core PRIVATE
  export/exportfile.cpp export/exportfile.h
  export/exportformat.cpp export/exportformat.h
  export/kernelexporter.cpp export/kernelexporter.h
  export/reportwriter.cpp export/reportwriter.h
  export/sessionexport.cpp export/sessionexport.h
  export/taskdetector.cpp export/taskdetector.h)
