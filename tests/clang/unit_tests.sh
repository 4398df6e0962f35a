#!/usr/bin/env bash
# ctest's clang.unit_tests: builds a share of weft's unit tests with Clang,
# AddressSanitizer and UndefinedBehaviorSanitizer (WEFT_SANITIZE), runs
# them, and checks that Clang compiles every one of weft's headers without a
# warning. weft is header-only, so every program compiles it with its own
# compiler, and a Clang user must get what a GCC user gets. Any ASan report,
# and any undefined behaviour (not recoverable here), fails the run. Then a
# kernel that writes one element past its array must get ASan's report with
# no warning before it (tests/sanitize). Skipped (exit 77) where no Clang 16
# or later is installed (Clang 14 lacks std::source_location).
#
# The share is weft_sanitizer_tests (tests/CMakeLists.txt,
# sanitizer_unit_test_globs): the runtime's memory, stream, event and graph
# tests, the scheduler, executor and stress tests and the memory check. The
# whole suite under the sanitizers built in about three times the CPU time
# of a plain Clang build of it, which put CI past its 60 minutes; this share
# builds in no more than that plain build did, and GCC still builds and runs
# every test. docs/debugging.md ("In CI") has the measurements and the
# command for the whole suite under the sanitizers (WEFT_SANITIZER_TESTS=all).
# Usage: unit_tests.sh SOURCE_DIR BINARY_DIR
# WEFT_PORT_EXECUTABLE in the environment (ctest sets it to the main build's):
# that weft-port instead of building one in BINARY_DIR.
set -euo pipefail
source_dir=$1
binary_dir=$2

source "$source_dir/tests/clang/find_clang.sh"
# WEFT_SANITIZER_TESTS=all: the whole unit suite instead of CI's share.
tests_target=weft_sanitizer_tests
[[ ${WEFT_SANITIZER_TESTS:-} == all ]] && tests_target=weft_tests
echo "building $tests_target with $compiler ($("$compiler" -dumpversion)), ASan and UBSan"

# -O1 with line tables: ASan's advice for a usable speed and exact reports,
# and cheaper to compile than -O2 (docs/debugging.md, "Sanitizer builds").
cmake -S "$source_dir" -B "$binary_dir" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG" -DCMAKE_CXX_FLAGS="-fno-sanitize-recover=undefined" \
  -DWEFT_SANITIZE="address;undefined" -DWEFT_BUILD_EXAMPLES=OFF -DWEFT_BUILD_BENCHMARKS=OFF \
  ${WEFT_PORT_EXECUTABLE:+"-DWEFT_PORT_EXECUTABLE=$WEFT_PORT_EXECUTABLE"} > /dev/null
log=$binary_dir/build.log
start=$SECONDS
# weft_all_headers compiles every header of weft in one translation unit
# (tests/headers): with the share of the tests, it keeps all of them under
# Clang's -Wall -Wextra, as the whole suite's build used to.
if ! cmake --build "$binary_dir" --target "$tests_target" sanitize_overrun weft_all_headers weft_all_headers_avx512 weft_all_headers_cet -j"$(nproc)" > "$log" 2>&1; then
  cat "$log"
  exit 1
fi
echo "built in $((SECONDS - start)) s"
if grep -A4 "include/weft/.*warning:" "$log"; then
  echo "Clang warns about weft's headers (above)"
  exit 1
fi

# Reports name source lines where a symbolizer is found (Debian's
# llvm-symbolizer is a relative link, which ASan does not follow).
for name in llvm-symbolizer-16 llvm-symbolizer; do
  if symbolizer=$(command -v "$name"); then
    export ASAN_SYMBOLIZER_PATH=$(readlink -f "$symbolizer")
    break
  fi
done
export UBSAN_OPTIONS=print_stacktrace=1
# A failed allocation returns null, as glibc's does, so that cudaMalloc of
# 2^60 bytes returns cudaErrorMemoryAllocation instead of ending the run.
export ASAN_OPTIONS=allocator_may_return_null=1
start=$SECONDS
"$binary_dir/tests/$tests_target"
echo "unit tests ran in $((SECONDS - start)) s"
"$source_dir/tests/sanitize/check_overrun.sh" "$binary_dir/tests/sanitize/sanitize_overrun"
