# dtl (the diff template library behind Compare) is header-only; Debian ships it as libdtl-dev, without a CMake
# config.
find_path(DTL_INCLUDE_DIR dtl/dtl.hpp)
if(NOT DTL_INCLUDE_DIR)
  message(FATAL_ERROR "dtl/dtl.hpp not found: install Debian's libdtl-dev (bash packaging/install-deps.sh)")
endif()
add_library(dtl::dtl INTERFACE IMPORTED)
set_target_properties(dtl::dtl PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${DTL_INCLUDE_DIR}")
