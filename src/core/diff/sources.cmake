# Compare: the kernel diff (over dtl, Debian's libdtl-dev) and the metric deltas; pure functions.
target_sources(accelopt_core PRIVATE
  diff/kerneldiff.cpp diff/kerneldiff.h
  diff/metricdeltas.cpp diff/metricdeltas.h diff/comparepair.h)
