#!/usr/bin/env bash
# ctest's race_check.racecheck_probe: builds tests/race/racecheck_probe.cu
# with Clang and WEFT_SANITIZE=race (at -O1, as race_silent.sh does: the
# level at which weft's own code, such as a std::vector of a named barrier's
# arrivals, stays out of line where the ignore list must keep it), runs
# it on both executors and fails unless its output is the H200's and its
# reports, as "kernel kind line line" (the earlier access's line first), are
# those of racecheck_probe.weft.txt (docs/debugging.md, "Against
# compute-sanitizer"). Skipped (exit 77) where no Clang 16 or later is installed.
# Usage: racecheck_probe_check.sh SOURCE_DIR BINARY_DIR
# WEFT_PORT_EXECUTABLE in the environment (ctest sets it to the main build's):
# that weft-port instead of building one in BINARY_DIR.
set -euo pipefail
source_dir=$1
binary_dir=$2
source "$source_dir/tests/clang/find_clang.sh"
here=$source_dir/tests/race

cmake -S "$here/project" -B "$binary_dir" -DWEFT_SOURCE_DIR="$source_dir" -DCMAKE_CXX_COMPILER="$compiler" \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1 -DWEFT_SANITIZE=race -DWEFT_RACE_PROGRAMS=race/racecheck_probe \
  ${WEFT_PORT_EXECUTABLE:+"-DWEFT_PORT_EXECUTABLE=$WEFT_PORT_EXECUTABLE"} > /dev/null
if ! cmake --build "$binary_dir" --target race.racecheck_probe -j"$(nproc)" > "$binary_dir/build.log" 2>&1; then
  cat "$binary_dir/build.log"
  exit 1
fi
failed=0
for executor in auto fibers; do
  out=$binary_dir/racecheck_probe.$executor
  WEFT_WORKERS=2 WEFT_EXECUTOR=$executor "$binary_dir/race.racecheck_probe" > "$out.out" 2> "$out.err"
  # A report's first line names the kernel and the kind, its next two the lines.
  sed -nE "/^weft racecheck: /{s/.* ([a-z-]+) hazard in kernel '([a-z_]+)\(.*/\2 \1/;N;N;s/\n[^\n]*racecheck_probe\.cu:([0-9]+)[^\n]*/ \1/g;p}" \
    "$out.err" | sort > "$out.reports"
  if ! diff -u "$here/racecheck_probe.weft.txt" "$out.reports"; then
    echo "racecheck_probe_check: other reports than expected (WEFT_EXECUTOR=$executor)"
    failed=1
  fi
  if ! diff -u <(grep -E '^(case |  )' "$here/racecheck_probe.racecheck.txt") "$out.out"; then
    echo "racecheck_probe_check: output differs from the H200's (WEFT_EXECUTOR=$executor)"
    failed=1
  fi
done
exit $failed
