# ctest driver for one golden case: ports cases/CASE.cu and compares.
#   CASE.expected         the output, byte for byte (the tool must succeed)
#   CASE.expected-stderr  its warnings, if it has any
#   CASE.expected-error   instead of the two above: the tool must refuse
#                         the file, with exactly these messages
#   CASE.args             options for the tool, if the case needs some (one line)
# A case's race-check twin, CASE_race_check.cu with its own files as above,
# if there is one, is checked by the same test (ctest entries stay few).
# The tool runs inside cases/ on the bare file name, so that the `#line`
# directive in the output does not depend on where the tree is.
# After a deliberate change, WEFT_PORT_UPDATE_GOLDEN=1 ctest -R port.case
# rewrites the expected files from the tool's output (review the diff).
cmake_minimum_required(VERSION 3.25)

function(expect_same what actual expected_file)
  set(expected "")
  if(EXISTS ${expected_file})
    file(READ ${expected_file} expected)
  endif()
  if(NOT actual STREQUAL expected)
    find_program(DIFF diff)
    if(DIFF)
      execute_process(COMMAND ${DIFF} -u ${expected_file} ${actual_file} OUTPUT_VARIABLE difference)
    endif()
    message(FATAL_ERROR "${case}: the ${what} differs from ${expected_file}\n${difference}")
  endif()
endfunction()

function(check_case case)
  set(options)
  if(EXISTS ${CASES}/${case}.args)
    file(STRINGS ${CASES}/${case}.args options)
    separate_arguments(options UNIX_COMMAND "${options}")
  endif()
  execute_process(COMMAND ${TOOL} ${options} ${case}.cu WORKING_DIRECTORY ${CASES} RESULT_VARIABLE code
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(MAKE_DIRECTORY ${OUT})
  file(WRITE ${OUT}/${case}.actual "${out}")
  file(WRITE ${OUT}/${case}.actual-stderr "${err}")

  if(DEFINED ENV{WEFT_PORT_UPDATE_GOLDEN})
    if(code EQUAL 0)
      file(WRITE ${CASES}/${case}.expected "${out}")
      if(err)
        file(WRITE ${CASES}/${case}.expected-stderr "${err}")
      endif()
    else()
      file(WRITE ${CASES}/${case}.expected-error "${err}")
    endif()
    message("updated the golden files of ${case}")
    return()
  endif()

  if(EXISTS ${CASES}/${case}.expected-error)
    if(code EQUAL 0)
      message(FATAL_ERROR "${case}: weft-port accepted a file it must refuse")
    endif()
    set(actual_file ${OUT}/${case}.actual-stderr)
    expect_same("error report" "${err}" ${CASES}/${case}.expected-error)
  else()
    if(NOT code EQUAL 0)
      message(FATAL_ERROR "${case}: weft-port exited with ${code}:\n${err}")
    endif()
    set(actual_file ${OUT}/${case}.actual)
    expect_same("output" "${out}" ${CASES}/${case}.expected)
    set(actual_file ${OUT}/${case}.actual-stderr)
    expect_same("warnings" "${err}" ${CASES}/${case}.expected-stderr)
  endif()
endfunction()

check_case(${CASE})
if(EXISTS ${CASES}/${CASE}_race_check.cu)
  check_case(${CASE}_race_check)
endif()
message("PASS")
