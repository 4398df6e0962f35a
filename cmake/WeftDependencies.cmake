# Finds what weft needs and, when something is missing, stops at once with
# the Debian package that provides it.

macro(weft_find_or_explain package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR "weft needs ${package}, which was not found. On Debian or Ubuntu install it with:\n"
                        "  sudo apt-get install -y ${debian_package}\n")
  endif()
endmacro()

# What every program that uses weft needs.
macro(weft_require_dependencies)
  weft_find_or_explain(Boost libboost-context-dev 1.74 CONFIG COMPONENTS context)
  set(THREADS_PREFER_PTHREAD_FLAG ON)
  find_package(Threads REQUIRED)
endmacro()
