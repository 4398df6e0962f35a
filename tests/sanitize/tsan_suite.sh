#!/usr/bin/env bash
# The whole unit suite under ThreadSanitizer, every case in one process:
# each test file is compiled alone (no unity batches, so that a report names
# the test file's own line), linked with doctest's main, and run. Prints the
# build and run times, doctest's result and TSan's reports counted by source
# line; exits non-zero if a case failed or TSan reported anything.
#
# Usage (from the repository root):
#   tests/sanitize/tsan_suite.sh          build, then run
#   tests/sanitize/tsan_suite.sh run      run the last build again
# Settings, from the environment:
#   TSAN_CXX       compiler (g++; clang++-16 works too)
#   TSAN_JOBS      parallel compiles (the number of cores)
#   TSAN_BUILD     build folder (/tmp/weft-tsan)
#   TSAN_INCLUDES  more -I flags: doctest's and Boost's headers where the
#                  system has none
#   TSAN_LIBDIR    where libboost_context lives, if not the system's
#   TSAN_LIMIT     seconds the run may take (1800)
#   TSAN_ARGS      doctest arguments, e.g. --test-case='*atomic*'
set -uo pipefail
cxx=${TSAN_CXX:-g++}
jobs=${TSAN_JOBS:-$(nproc)}
build=${TSAN_BUILD:-/tmp/weft-tsan}
libdir=${TSAN_LIBDIR:-}
mkdir -p "$build"
flags="-std=c++20 -O1 -g -fsanitize=thread -fno-omit-frame-pointer -Iinclude -Itests/unit -Itests ${TSAN_INCLUDES:-}"
export flags cxx build

"$cxx" --version | head -1
if [[ ${1:-} != run ]]; then
  start=$SECONDS
  rm -f "$build"/*.o "$build"/*.err
  compile_one() {
    local object=$build/$(tr / _ <<< "$1").o
    $cxx $flags -c "$1" -o "$object" 2> "$object.err" || {
      echo "FAILED to compile $1"
      head -20 "$object.err"
      return 1
    }
  }
  export -f compile_one
  # The CPU time tells what the build would take on fewer cores.
  TIMEFORMAT="compiled in %R s (CPU time: %U s user, %S s system)"
  time { (echo tests/unit/main.cpp; find tests/unit -name '*_test.cpp' | sort) |
    xargs -P "$jobs" -I{} bash -c 'compile_one {}' || compile_failed=1; }
  # TSAN_KEEP_GOING=1 runs the files that compiled all the same.
  ((${compile_failed:-0} && !${TSAN_KEEP_GOING:-0})) && exit 1
  "$cxx" -fsanitize=thread "$build"/*.o -o "$build/unit_tests" ${libdir:+-L"$libdir"} -lboost_context -lpthread \
    -rdynamic || exit 1
  echo "built in $((SECONDS - start)) s ($(ls "$build"/*_test.cpp.o | wc -l) test files)"
  cat "$build"/*.err | grep "warning:" | sed 's/^[^ ]*: //' | sort | uniq -c | sort -rn | head -5
fi

log=$build/tsan_run.txt
# allocator_may_return_null: tests ask for more memory than there is and
# expect cudaErrorMemoryAllocation, not TSan's abort. history_size=4: longer
# access histories, so that a report shows both accesses' stacks even after
# millions of fiber switches.
TIMEFORMAT="ran in %R s (CPU time: %U s user, %S s system)"
time {
  TSAN_OPTIONS="allocator_may_return_null=1 halt_on_error=0 second_deadlock_stack=1 history_size=4 ${TSAN_OPTIONS:-}" \
    LD_LIBRARY_PATH="${libdir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    timeout "${TSAN_LIMIT:-1800}" "$build/unit_tests" ${TSAN_ARGS:-} > "$log" 2>&1
  status=$?
}
echo "exit status $status; the whole output: $log"
grep "^\[doctest\] test cases\|^\[doctest\] Status" "$log"
reports=$(grep -c "^WARNING: ThreadSanitizer" "$log")
echo "$reports ThreadSanitizer reports"
grep "^SUMMARY: ThreadSanitizer" "$log" | sort | uniq -c | sort -rn
((status == 0 && reports == 0 && ${compile_failed:-0} == 0))
