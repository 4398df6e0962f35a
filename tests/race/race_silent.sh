#!/usr/bin/env bash
# ctest's race_check.programs: builds weft's examples, teaching programs and
# differential probes with Clang and WEFT_SANITIZE=race (the race check,
# docs/debugging.md), runs each, and fails if any reports a hazard or no
# longer gives its result (an example's or teaching program's PASS, a
# probe's output equal to the GPU's, NAME.expected). These programs are
# free of races: a report is the race check's false report, or a real race
# that slipped into one of them.
# Skipped (exit 77) where no Clang 16 or later is installed.
#
# Usage: race_silent.sh SOURCE_DIR BINARY_DIR [FOLDER/NAME ... | all]
#   FOLDER/NAME: examples/matmul_shared, teaching/reduction,
#   differential/warp_probe, ...; `all`: every one of them.
# WEFT_PORT_EXECUTABLE in the environment (ctest sets it to the main build's):
# that weft-port instead of building one in BINARY_DIR.
set -euo pipefail
source_dir=$1
binary_dir=$2
shift 2

source "$source_dir/tests/clang/find_clang.sh"

programs=("$@")
if [[ ${programs[*]} == all ]]; then
  programs=()
  for f in "$source_dir"/examples/*.cu "$source_dir"/examples/*.cpp; do
    programs+=("examples/$(basename "${f%.*}")")
  done
  for f in "$source_dir"/tests/teaching/*.cu "$source_dir"/tests/differential/*.cu; do
    case $(basename "$f") in
      # GPU-only probes, which weft's tests do not run either: the first is
      # built with nvcc only (its cases time named barriers that a GPU may
      # never release), the second launches 2^31-1 blocks, far more than a
      # CPU runs in the 10 minutes allowed below (unit tests assert its codes).
      named_barrier_counting_probe.cu | error_codes_probe.cu) continue ;;
    esac
    programs+=("$(basename "$(dirname "$f")")/$(basename "${f%.cu}")")
  done
fi
list=$(IFS=";" && echo "${programs[*]}")

# -O1: kernels at -O0 make every local variable a traced access.
cmake -S "$source_dir/tests/race/project" -B "$binary_dir" -DWEFT_SOURCE_DIR="$source_dir" \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1 -DWEFT_SANITIZE=race \
  -DWEFT_RACE_PROGRAMS="$list" ${WEFT_PORT_EXECUTABLE:+"-DWEFT_PORT_EXECUTABLE=$WEFT_PORT_EXECUTABLE"} > /dev/null
targets=()
for program in "${programs[@]}"; do targets+=("${program//\//.}"); done
log=$binary_dir/build.log
if ! cmake --build "$binary_dir" --target "${targets[@]}" -j"$(nproc)" > "$log" 2>&1; then
  cat "$log"
  exit 1
fi

failed=0
for program in "${programs[@]}"; do
  name=$(basename "$program")
  target=${program//\//.}
  # The worker counts their ctest runs use (tests/differential/CMakeLists.txt).
  workers=2
  case $name in
    cluster_probe) workers=16 ;;
    resident_blocks_probe | residency_probe) workers=1 ;;
  esac
  out=$binary_dir/$target.out
  err=$binary_dir/$target.err
  status=0
  (cd "$binary_dir" && WEFT_WORKERS=$workers timeout 600 "./$target" > "$out" 2> "$err") || status=$?
  verdict=ok
  if grep -qE "hazard (in|between) kernel" "$err"; then
    verdict="hazards reported"
  elif ((status != 0)); then
    verdict="exit status $status"
  elif [[ $program == differential/* ]]; then
    expected=$source_dir/tests/$program.expected
    # Only the probes that ctest compares with the GPU (weft_compare_probe in
    # tests/differential/CMakeLists.txt): device_functions_probe's and
    # runtime_api_probe's recorded values are asserted by unit tests instead.
    compared=$(grep -c "^ *weft_compare_probe($name)" "$source_dir/tests/differential/CMakeLists.txt" || true)
    if [[ -f $expected && $compared != 0 ]] && ! cmp -s "$out" "$expected"; then
      verdict="output differs from $program.expected"
    fi
  elif ! grep -q PASS "$out" || grep -q FAIL "$out"; then
    verdict="no PASS"
  fi
  echo "race_silent: $program: $verdict"
  if [[ $verdict != ok ]]; then
    failed=1
    cat "$err"
    [[ $program == differential/* && -f $source_dir/tests/$program.expected ]] &&
      diff "$source_dir/tests/$program.expected" "$out" | head -20
  fi
done
exit $failed
