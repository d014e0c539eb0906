# One place for the warning set, so every target (core, app, cli, tests) is held to the same bar.
function(accelopt_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Woverloaded-virtual)
  if(ACCELOPT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
