# ctest driver: builds TARGET, whose .cu (SOURCE) has deliberate errors on
# the lines ending in `// ERROR-HERE`, and checks that the build fails and that the
# compiler reports each of those lines as a line of SOURCE.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET} RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(code EQUAL 0)
  message(FATAL_ERROR "${TARGET} built, but its source has deliberate errors")
endif()

get_filename_component(file ${SOURCE} NAME)
string(REPLACE "." "\\." file_pattern ${file})
file(STRINGS ${SOURCE} lines)
set(number 0)
set(marked 0)
foreach(line IN LISTS lines)
  math(EXPR number "${number} + 1")
  if(line MATCHES "// ERROR-HERE$")
    math(EXPR marked "${marked} + 1")
    if(NOT out MATCHES "${file_pattern}:${number}:[0-9]+: error")
      message(FATAL_ERROR "no error reported at ${file}:${number}; the build said:\n${out}")
    endif()
  endif()
endforeach()
if(marked EQUAL 0)
  message(FATAL_ERROR "${SOURCE} has no line ending in // ERROR-HERE")
endif()
message("PASS: the ${marked} errors are reported at ${file}'s own lines")
