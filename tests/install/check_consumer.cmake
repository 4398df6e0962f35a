# ctest driver: builds tests/install as an outside project would and runs it.
# The project is copied first, so that its .cu can be edited to check that
# the edit is ported again.
#   MODE=installed: install weft into a scratch prefix, then find_package(weft)
#   MODE=subdirectory: add_subdirectory(<weft source>)
cmake_minimum_required(VERSION 3.25)
set(work ${BINARY_DIR}/consumer-${MODE})
file(REMOVE_RECURSE ${work})
file(COPY ${SOURCE_DIR}/tests/install/ DESTINATION ${work}/src)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGN}\n${out}")
  endif()
  message("${out}")
  set(out "${out}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "installed")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${work}/weft-build -DWEFT_BUILD_TESTS=OFF -DWEFT_BUILD_EXAMPLES=OFF
      -DWEFT_BUILD_BENCHMARKS=OFF -DCMAKE_INSTALL_PREFIX=${work}/prefix)
  run(${CMAKE_COMMAND} --build ${work}/weft-build)  # weft-port, the one thing to build
  run(${CMAKE_COMMAND} --install ${work}/weft-build)
  # The gdb extension is installed with the headers (docs/debugging.md, "gdb").
  if(NOT EXISTS ${work}/prefix/share/weft/gdb/weft_gdb.py)
    message(FATAL_ERROR "the gdb extension was not installed: no ${work}/prefix/share/weft/gdb/weft_gdb.py")
  endif()
  run(${CMAKE_COMMAND} -S ${work}/src -B ${work}/build -DCMAKE_PREFIX_PATH=${work}/prefix)
else()
  run(${CMAKE_COMMAND} -S ${work}/src -B ${work}/build -DWEFT_SOURCE_DIR=${SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} --build ${work}/build)
# Beside the ported program, the file gdb auto-loads with it (docs/debugging.md,
# "gdb"), naming an extension that exists: the installed one, or the source tree's.
file(STRINGS ${work}/build/consumer_cu-gdb.py extension REGEX "^_weft_gdb_extension = ")
string(REGEX REPLACE "^_weft_gdb_extension = \"(.*)\"$" "\\1" extension "${extension}")
if(NOT EXISTS "${extension}" OR (MODE STREQUAL "installed" AND NOT extension MATCHES "^${work}/prefix/"))
  message(FATAL_ERROR "FAIL: consumer_cu-gdb.py names '${extension}', not weft's gdb extension of this weft")
endif()
run(${work}/build/consumer)
run(${work}/build/consumer_cu)

# Editing the .cu ports it again (the build runs weft-port on it) and the
# program sees the edit.
execute_process(COMMAND ${CMAKE_COMMAND} -E sleep 1)
file(READ ${work}/src/consumer_cu.cu source)
string(REPLACE "#define VALUE 7" "#define VALUE 8" source "${source}")
file(WRITE ${work}/src/consumer_cu.cu "${source}")
run(${CMAKE_COMMAND} --build ${work}/build)
if(NOT out MATCHES "Porting consumer_cu.cu")
  message(FATAL_ERROR "FAIL: editing consumer_cu.cu did not port it again")
endif()
run(${work}/build/consumer_cu)
if(NOT out MATCHES "PASS: value 8")
  message(FATAL_ERROR "FAIL: the edit of consumer_cu.cu did not reach the program")
endif()

# WEFT_SANITIZE on the project's own configure reaches its programs, the
# ported ones too (compile and link flags), and only then: weft's own build
# exports no sanitizer flags. Configured only: a sanitized build of weft's
# programs is clang.unit_tests' work.
function(flags_of build target out)
  file(READ ${work}/${build}/CMakeFiles/${target}.dir/flags.make compile)
  file(READ ${work}/${build}/CMakeFiles/${target}.dir/link.txt link)
  set(${out} "${compile}\n${link}" PARENT_SCOPE)
endfunction()
flags_of(build consumer_cu plain)
if(plain MATCHES "-fsanitize")
  message(FATAL_ERROR "FAIL: a consumer without WEFT_SANITIZE got sanitizer flags:\n${plain}")
endif()
if(MODE STREQUAL "installed")
  set(locate -DCMAKE_PREFIX_PATH=${work}/prefix)
else()
  set(locate -DWEFT_SOURCE_DIR=${SOURCE_DIR})
endif()
run(${CMAKE_COMMAND} -S ${work}/src -B ${work}/build-sanitized ${locate} "-DWEFT_SANITIZE=address\;undefined")
foreach(target consumer consumer_cu)
  flags_of(build-sanitized ${target} sanitized)
  string(REGEX MATCHALL "-fsanitize=address,undefined" found "${sanitized}")
  list(LENGTH found count)
  if(count LESS 2)
    message(FATAL_ERROR "FAIL: WEFT_SANITIZE=address;undefined did not reach ${target}'s compile and link flags:\n"
                        "${sanitized}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${work}/src -B ${work}/build-refused ${locate}
                        "-DWEFT_SANITIZE=address;thread" RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(code EQUAL 0 OR NOT out MATCHES "address and thread cannot be combined")
  message(FATAL_ERROR "FAIL: WEFT_SANITIZE=address;thread was not refused at configure:\n${out}")
endif()
