# WEFT_SANITIZE=race (alone or in a list with other sanitizers): the race
# check, weft's detector of data races between CUDA threads
# (docs/debugging.md, "Race check"; docs/architecture.md, "Race check").
#
# Every target that links weft::weft (weft_add_cuda_executable's too) is
# compiled with Clang's -fsanitize-coverage=func,trace-loads,trace-stores,
# which makes each plain load and store call the detector, with weft's own
# functions left out (weft_race_check_ignore.txt), with line tables for the
# reports, and gets the one translation unit that defines the callbacks
# (weft_race_check.cpp). GCC has no such instrumentation: configuring with
# it stops with an error.
include_guard(GLOBAL)

set(WEFT_RACE_CHECK_DIR ${CMAKE_CURRENT_LIST_DIR})

# weft_add_race_check(target [BUILD_INTERFACE]): the race check's options
# and callbacks in the target's interface (called by weft_apply_sanitizers,
# cmake/WeftSanitize.cmake). BUILD_INTERFACE keeps them out of what is
# installed and exported; an installed weft's weftConfig.cmake applies them
# to a project that sets WEFT_SANITIZE=race itself, from the copies of these
# files installed beside it.
function(weft_add_race_check target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "BUILD_INTERFACE" "" "")
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 16)
    message(FATAL_ERROR "WEFT_SANITIZE=race needs Clang 16 or later (its -fsanitize-coverage=trace-loads,trace-stores); "
                        "this build uses ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}. Configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-16, for example.")
  endif()
  set(instrument -fsanitize-coverage=func,trace-loads,trace-stores)
  set(compile ${instrument} -gline-tables-only
              -fsanitize-coverage-ignorelist=${WEFT_RACE_CHECK_DIR}/weft_race_check_ignore.txt)
  set(link ${instrument})
  set(callbacks ${WEFT_RACE_CHECK_DIR}/weft_race_check.cpp)
  if(arg_BUILD_INTERFACE)
    foreach(list compile link callbacks)
      list(TRANSFORM ${list} PREPEND "$<BUILD_INTERFACE:")
      list(TRANSFORM ${list} APPEND ">")
    endforeach()
  endif()
  target_compile_options(${target} INTERFACE ${compile})
  target_link_options(${target} INTERFACE ${link})
  target_sources(${target} INTERFACE ${callbacks})
  message(STATUS "weft: programs built with the race check (WEFT_SANITIZE=race)")
endfunction()
