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

function(weft_add_race_check target)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 16)
    message(FATAL_ERROR "WEFT_SANITIZE=race needs Clang 16 or later (its -fsanitize-coverage=trace-loads,trace-stores); "
                        "this build uses ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}. Configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-16, for example.")
  endif()
  set(instrument -fsanitize-coverage=func,trace-loads,trace-stores)
  # In the build tree from here; installed beside weft's CMake package.
  set(installed ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
  target_compile_options(
    ${target}
    INTERFACE ${instrument} -gline-tables-only
              $<BUILD_INTERFACE:-fsanitize-coverage-ignorelist=${WEFT_RACE_CHECK_DIR}/weft_race_check_ignore.txt>
              $<INSTALL_INTERFACE:-fsanitize-coverage-ignorelist=$<INSTALL_PREFIX>/${installed}/weft_race_check_ignore.txt>)
  target_link_options(${target} INTERFACE ${instrument})
  target_sources(${target} INTERFACE $<BUILD_INTERFACE:${WEFT_RACE_CHECK_DIR}/weft_race_check.cpp>
                                     $<INSTALL_INTERFACE:${installed}/weft_race_check.cpp>)
  install(FILES ${WEFT_RACE_CHECK_DIR}/weft_race_check.cpp ${WEFT_RACE_CHECK_DIR}/weft_race_check_ignore.txt
          DESTINATION ${installed})
endfunction()
