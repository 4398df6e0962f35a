#!/bin/sh
# The floor of a stackless shuffle step on C++20 coroutines without weft
# (shuffle_ring.cpp): time, and instructions per lane and step under
# callgrind (the reduction's count less its shuffle-free twin's, over
# 100 reductions by 256 lanes of 5 steps), with weft_bench's compiler and
# flags (GCC 12, -O3). docs/performance.md, "What is slow, and why".
set -e
dir=${1:-/tmp/shuffle_ring}
mkdir -p "$dir"
${CXX:-g++} -std=c++20 -O3 "$(dirname "$0")/shuffle_ring.cpp" -o "$dir/shuffle_ring"
"$dir/shuffle_ring"
if command -v valgrind > /dev/null; then
  count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$dir/shuffle_ring" 100 1 "$1" 2>&1 | sed -n 's/.*Collected : //p'; }
  steps=$(count 1)
  free=$(count 2)
  awk -v s="$steps" -v f="$free" 'BEGIN { printf "instructions per lane and step: %.1f\n", (s - f) / (100 * 256 * 5) }'
fi
