# ctest driver for one golden case: ports cases/CASE.cu and compares.
#   CASE.expected         the output, byte for byte (the tool must succeed)
#   CASE.expected-stderr  its warnings, if it has any
#   CASE.expected-error   instead of the two above: the tool must refuse
#                         the file, with exactly these messages
# The tool runs inside cases/ on the bare file name, so that the `#line`
# directive in the output does not depend on where the tree is.
# After a deliberate change, WEFT_PORT_UPDATE_GOLDEN=1 ctest -R port.case
# rewrites the expected files from the tool's output (review the diff).
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${TOOL} ${CASE}.cu WORKING_DIRECTORY ${CASES} RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
file(MAKE_DIRECTORY ${OUT})
file(WRITE ${OUT}/${CASE}.actual "${out}")
file(WRITE ${OUT}/${CASE}.actual-stderr "${err}")

if(DEFINED ENV{WEFT_PORT_UPDATE_GOLDEN})
  if(code EQUAL 0)
    file(WRITE ${CASES}/${CASE}.expected "${out}")
    if(err)
      file(WRITE ${CASES}/${CASE}.expected-stderr "${err}")
    endif()
  else()
    file(WRITE ${CASES}/${CASE}.expected-error "${err}")
  endif()
  message("updated the golden files of ${CASE}: PASS")
  return()
endif()

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
    message(FATAL_ERROR "${CASE}: the ${what} differs from ${expected_file}\n${difference}")
  endif()
endfunction()

if(EXISTS ${CASES}/${CASE}.expected-error)
  if(code EQUAL 0)
    message(FATAL_ERROR "${CASE}: weft-port accepted a file it must refuse")
  endif()
  set(actual_file ${OUT}/${CASE}.actual-stderr)
  expect_same("error report" "${err}" ${CASES}/${CASE}.expected-error)
else()
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${CASE}: weft-port exited with ${code}:\n${err}")
  endif()
  set(actual_file ${OUT}/${CASE}.actual)
  expect_same("output" "${out}" ${CASES}/${CASE}.expected)
  set(actual_file ${OUT}/${CASE}.actual-stderr)
  expect_same("warnings" "${err}" ${CASES}/${CASE}.expected-stderr)
endif()
message("PASS")
