#!/usr/bin/env bash
# Runs on the device machine, from the repository root, with .device-carry/
# carried (tools/compat/device_carry.sh makes it): builds the cuda-samples in
# scope with this tree's weft, runs each against the H100's verdicts, and
# leaves results.tgz (logs, results.json/.md/.csv) in $OUT, with a partial
# copy every 10 s in case the call is cut off. WEFT_COMMIT=<sha> names the
# commit of the tree sent (the copy's own git HEAD can be stale). About 150 s of build and 190 s
# of runs on 16 cores (2026-11-28). ONLY=a,b limits it to some samples.
set -uo pipefail
start=$SECONDS
carry=$PWD/.device-carry
work=/tmp/weft-compat
mkdir -p "$work/samples" "$work/prefix"
tar xzf "$carry/boost-context.tgz" -C "$work/prefix"
tar xJf "$carry/cuda-samples.tar.xz" -C "$work/samples"
export CMAKE_PREFIX_PATH=$work/prefix/usr LD_LIBRARY_PATH=$work/prefix/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
{ c++ --version | head -1; nproc; cmake --version | head -1; } > "$OUT/machine.txt" 2>&1
(while sleep 10; do
  tar czf "$work/partial.tgz" -C "$work/out" logs results.json results.md 2>/dev/null && mv -f "$work/partial.tgz" "$OUT/"
done) &
saver=$!
jobs=$(nproc)
python3 tools/compat/run_samples.py "$work/samples" --out "$work/out" -j"$jobs" --run-jobs $((jobs / 2)) --workers 2 \
  --label "NVIDIA/cuda-samples at c94ff366 (2025-09-05)" \
  --gpu tools/compat/reference/cuda-samples-c94ff366-h100.json ${ONLY:+--only "$ONLY"} ${WEFT_COMMIT:+--weft-commit "$WEFT_COMMIT"} 2>&1 | tee "$OUT/run.txt"
echo "total $((SECONDS - start)) s" | tee -a "$OUT/run.txt"
kill "$saver"
tar czf "$OUT/results.tgz" -C "$work/out" logs results.json results.md results.csv
rm -f "$OUT/partial.tgz"
