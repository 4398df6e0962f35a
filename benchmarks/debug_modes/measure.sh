#!/bin/sh
# The slowdown of weft's debugging modes (docs/debugging.md, "What each mode
# costs"): `weft_bench suite` built three times with one compiler (Clang 16,
# the only one with the race check) and run in one session, the builds' runs
# interleaved round by round so that all of them see the same load:
#
#   normal    the default build, WEFT_SCHEDULE unset
#   forward   the same binary, WEFT_SCHEDULE=forward (the default, spelled)
#   random    the same binary, WEFT_SCHEDULE=random:1
#   stackless the same binary, WEFT_EXECUTOR=stackless: the kernels that
#             have a region version run as their stackless kernels
#   address   -DWEFT_SANITIZE=address  (the memory check)
#   race      -DWEFT_SANITIZE=race     (the race check)
#
# Prints, per kernel, the median over the rounds of each mode's weft time and
# its ratio to `normal`'s: the ratio of CPU time (all threads of the process
# during weft's runs), which depends less on what else the machine runs, and
# in brackets the ratio of wall time. Only weft's column is compared (the
# suite's plain loops are built with the same flags; PoCL is left out).
#
#   benchmarks/debug_modes/measure.sh [build-root] [rounds] [weft_bench options...]
#   e.g. nice -n 19 benchmarks/debug_modes/measure.sh /tmp/debug-modes 5 --kernels vecadd,matmul
#
# Environment: CXX (default clang++-16), BUILD_TYPE (default Release),
# JOBS (parallel compiles, default 2), MODES (a subset of the modes above, in
# quotes; normal is always run, as the reference), EXTRA_ASAN_OPTIONS (added
# to the address mode's ASAN_OPTIONS, e.g. detect_stack_use_after_return=0),
# WEFT_WORKERS as for any weft program. RACE_BEFORE: the weft_bench of
# another race-check build (another commit's, built as this script builds
# its own), run as the mode race_before in the same rounds, to compare two
# versions of the check.
set -eu
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/tmp/weft-debug-modes}
rounds=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
cxx=${CXX:-clang++-16}
build_type=${BUILD_TYPE:-Release}
jobs=${JOBS:-2}
modes="normal $(printf '%s\n' ${MODES:-forward random address race} | grep -vx normal | tr '\n' ' ')"
[ -n "${RACE_BEFORE:-}" ] && modes="$modes race_before"

builds=normal
case " $modes " in *" address "*) builds="$builds address" ;; esac
case " $modes " in *" race "*) builds="$builds race" ;; esac
for build in $builds; do
  case $build in
    normal) sanitize= ;;
    *) sanitize=$build ;;
  esac
  if [ ! -f "$root/$build/CMakeCache.txt" ]; then
    cmake -S "$source_dir" -B "$root/$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$build_type" \
      -DWEFT_SANITIZE="$sanitize" -DWEFT_BUILD_TESTS=OFF -DWEFT_BUILD_EXAMPLES=OFF \
      -DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON >"$root.$build.configure.log"
  fi
  cmake --build "$root/$build" --target weft_bench -j "$jobs" >"$root.$build.build.log"
done

rows=$root.rows
: >"$rows"
# ASan: leaks at exit are not what is measured; go on after a report, as the
# memory check's users do.
asan="detect_leaks=0:halt_on_error=0${EXTRA_ASAN_OPTIONS:+:$EXTRA_ASAN_OPTIONS}"
round=1
while [ "$round" -le "$rounds" ]; do
  for mode in $modes; do
    case $mode in
      normal) run="env -u WEFT_SCHEDULE $root/normal/benchmarks/weft_bench" ;;
      forward) run="env WEFT_SCHEDULE=forward $root/normal/benchmarks/weft_bench" ;;
      random) run="env WEFT_SCHEDULE=random:1 $root/normal/benchmarks/weft_bench" ;;
      stackless) run="env -u WEFT_SCHEDULE WEFT_EXECUTOR=stackless $root/normal/benchmarks/weft_bench" ;;
      address) run="env -u WEFT_SCHEDULE ASAN_OPTIONS=$asan $root/address/benchmarks/weft_bench" ;;
      race) run="env -u WEFT_SCHEDULE $root/race/benchmarks/weft_bench" ;;
      race_before) run="env -u WEFT_SCHEDULE $RACE_BEFORE" ;;
    esac
    # One repetition per round: the rounds are the repetitions, interleaved.
    $run suite --suite-rows --repeat 1 "$@" 2>"$root.$mode.stderr" |
      awk -v mode="$mode" -F '\t' '$1 == "suite-row" { print mode "\t" $10 "\t" $3 "\t" $6 "\t" $9 }' >>"$rows"
  done
  round=$((round + 1))
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); compiler: $($cxx --version | head -1); $rounds rounds"
echo "weft's median CPU time per kernel in ms for normal; for the other modes its ratio to normal's (wall time's ratio)"
awk -F '\t' -v modes="$modes" '
  { wall[$2, $1] = wall[$2, $1] " " $3; cpu[$2, $1] = cpu[$2, $1] " " $4
    if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
    if (substr($5, 1, 1) != "1") wrong[$2, $1] = 1 }
  function median(list,   v, k, i, j, t) {
    k = split(list, v, " ")
    for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  END {
    count = split(modes, mode, " ")
    printf "%-48s", "kernel"; for (m = 1; m <= count; m++) printf " %15s", mode[m]; printf "\n"
    for (i = 1; i <= n; i++) {
      k = order[i]; printf "%-48s", k
      cpu_base = median(cpu[k, "normal"]); wall_base = median(wall[k, "normal"])
      for (m = 1; m <= count; m++) {
        if (m == 1) cell = sprintf("%.2f ms", cpu_base * 1e3)
        else cell = sprintf("%.2fx (%.2fx)", median(cpu[k, mode[m]]) / cpu_base, median(wall[k, mode[m]]) / wall_base)
        if (wrong[k, mode[m]]) cell = cell "!"
        printf " %15s", cell
      }
      printf "\n"
    }
    print "(!: a wrong result in that mode)"
  }' "$rows"
