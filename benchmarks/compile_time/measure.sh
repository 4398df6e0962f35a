#!/usr/bin/env bash
# Compile time of ten_line_kernel.cpp, as docs/performance.md reports it:
# the fastest of RUNS compiles (default 5) at -O2 with the link, with
# -fsyntax-only, and at -O2 against a precompiled <weft.hpp> (what
# weft_add_cuda_executable does), plus the preprocessed line count. Other
# work on the machine slows a compile down and never speeds it up, so the
# minimum is the figure; the load average is printed beside it.
# Usage: benchmarks/compile_time/measure.sh [RUNS]   (CXX picks the compiler)
set -euo pipefail
runs=${1:-5}
cxx=${CXX:-g++}
here=$(cd "$(dirname "$0")" && pwd)
include=$here/../../include
program=$here/ten_line_kernel.cpp
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# fastest WALL USER of RUNS runs of the command
fastest() {
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U" "$@" 2>&1 > /dev/null | tail -1
  done | sort -n | head -1
}

flags=(-std=c++20 -O2 -I"$include")
echo "$cxx $("$cxx" -dumpversion), load average $(cut -d' ' -f1-3 /proc/loadavg), $runs runs, seconds wall user"
echo "preprocessed lines: $("$cxx" "${flags[@]}" -E "$program" | wc -l)"
echo "-O2, compile and link: $(fastest "$cxx" "${flags[@]}" "$program" -o "$scratch/program" -lboost_context -rdynamic)"
echo "-O2 -fsyntax-only:     $(fastest "$cxx" "${flags[@]}" -fsyntax-only "$program")"
echo '#include <weft.hpp>' > "$scratch/weft_pch.hpp"
/usr/bin/time -f "%e %U" "$cxx" "${flags[@]}" -x c++-header "$scratch/weft_pch.hpp" -o "$scratch/weft_pch.hpp.gch" \
  2> "$scratch/pch_time"
echo "precompiling weft.hpp: $(tail -1 "$scratch/pch_time") ($(du -m "$scratch/weft_pch.hpp.gch" | cut -f1) MB)"
echo "-O2 with it, and link: $(fastest "$cxx" "${flags[@]}" -Winvalid-pch -include "$scratch/weft_pch.hpp" "$program" \
  -o "$scratch/program" -lboost_context -rdynamic)"
