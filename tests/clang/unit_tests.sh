#!/usr/bin/env bash
# ctest's clang.unit_tests: builds weft's unit tests with Clang and runs
# them. weft is header-only, so every program compiles it with its own
# compiler, and a Clang user must get what a GCC user gets. A warning from
# weft's own headers fails the test too. Skipped (exit 77) where no Clang 16
# or later is installed (Clang 14 lacks std::source_location).
# Usage: unit_tests.sh SOURCE_DIR BINARY_DIR
set -euo pipefail
source_dir=$1
binary_dir=$2

compiler=
for candidate in clang++ clang++-16 clang++-17 clang++-18 clang++-19; do
  command -v "$candidate" > /dev/null || continue
  if (("$("$candidate" -dumpversion | cut -d. -f1)" >= 16)); then
    compiler=$candidate
    break
  fi
done
if [[ -z $compiler ]]; then
  echo "no Clang 16 or later installed (apt-get install clang-16): skipped"
  exit 77
fi
echo "building weft's unit tests with $compiler ($("$compiler" -dumpversion))"

cmake -S "$source_dir" -B "$binary_dir" -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Release > /dev/null
log=$binary_dir/build.log
if ! cmake --build "$binary_dir" --target weft_tests -j"$(nproc)" > "$log" 2>&1; then
  cat "$log"
  exit 1
fi
if grep -A4 "include/weft/.*warning:" "$log"; then
  echo "Clang warns about weft's headers (above)"
  exit 1
fi
"$binary_dir/tests/weft_tests"
