#!/usr/bin/env bash
# Fills .device-carry/ (git-ignored) with what tools/compat/device_run.sh
# needs on the device machine, which has g++, CMake, Ninja and nvcc but no
# network and no Boost.Context library: the cuda-samples in scope (the whole
# suite is 173 MB; a call carries 64 MiB) and this machine's Boost.Context
# with its CMake configuration.
# Usage, from the repository root: tools/compat/device_carry.sh MIRROR_GIT_DIR
# (the search tool's `fetch github:NVIDIA/cuda-samples` gives the mirror; its
# git directory is the `repo` folder inside it). Then one device call:
# `bash tools/compat/device_run.sh`, carry [".device-carry"].
set -euo pipefail
mirror=$1
carry=.device-carry
mkdir -p "$carry"
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qsx '/.device-carry/' "$exclude" || echo '/.device-carry/' >> "$exclude"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/compat/export_checkout.py "$mirror" "$work/all" | sed -n 1p
python3 tools/compat/run_samples.py "$work/all" --list --out "$work/list" | sed -n 1p
python3 - "$work" <<'PY'
import json, shutil, sys, os
work = sys.argv[1]
samples = json.load(open(os.path.join(work, "list", "results.json")))["samples"]
for s in samples:
    if s["scope"] == "in":
        shutil.copytree(os.path.join(work, "all", s["directory"]), os.path.join(work, "scope", s["directory"]))
shutil.copytree(os.path.join(work, "all", "Common"), os.path.join(work, "scope", "Common"))
if os.path.exists(os.path.join(work, "all", "test_args.json")):
    shutil.copy(os.path.join(work, "all", "test_args.json"), os.path.join(work, "scope"))
PY
# xz, not gzip: with the repository (its recorded measurements) the carry
# must stay under the device tool's 64 MiB (gzip 34 MB, xz 23 MB).
tar cf - -C "$work/scope" . | xz -T0 -6 > "$carry/cuda-samples.tar.xz"

archive=$PWD/$carry/boost-context.tgz
(cd / && tar czf "$archive" usr/lib/x86_64-linux-gnu/libboost_context.so* usr/lib/x86_64-linux-gnu/cmake/boost_context-* \
  usr/lib/x86_64-linux-gnu/cmake/boost_headers-* usr/lib/x86_64-linux-gnu/cmake/Boost-* \
  usr/lib/x86_64-linux-gnu/cmake/BoostDetectToolset-*.cmake usr/include/boost/version.hpp)
du -sh "$carry"/*.tgz "$carry"/*.tar.xz
