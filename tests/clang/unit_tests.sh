#!/usr/bin/env bash
# ctest's clang.unit_tests: builds weft's unit tests with Clang and runs
# them. weft is header-only, so every program compiles it with its own
# compiler, and a Clang user must get what a GCC user gets; a warning from
# weft's own headers fails the test too. Skipped (exit 77) where no Clang 16
# or later is installed (Clang 14 lacks std::source_location).
# Usage: unit_tests.sh SOURCE_DIR BINARY_DIR
set -euo pipefail
source_dir=$1
binary_dir=$2

source "$source_dir/tests/clang/find_clang.sh"
echo "building weft's unit tests with $compiler ($("$compiler" -dumpversion))"

# Without sanitizers in CI: the ASan+UBSan form of this run (WEFT_SANITIZE
# "address;undefined", -O1 -gline-tables-only, -fno-sanitize-recover=undefined,
# then tests/sanitize/check_overrun.sh) passes the whole suite (628 cases,
# 2026-11-28), but its build takes about 17 minutes of CI's two cores against
# 6 for this one, which puts CI past its 60 minutes; docs/debugging.md ("In
# CI") has the command and what a reduced sanitizer build in CI would need.
cmake -S "$source_dir" -B "$binary_dir" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Release \
  -DWEFT_BUILD_EXAMPLES=OFF -DWEFT_BUILD_BENCHMARKS=OFF > /dev/null
log=$binary_dir/build.log
start=$SECONDS
if ! cmake --build "$binary_dir" --target weft_tests -j"$(nproc)" > "$log" 2>&1; then
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
"$binary_dir/tests/weft_tests"
echo "unit tests ran in $((SECONDS - start)) s"
