#!/bin/sh
# Installs what weft needs to build and test, from Debian's packages:
# a C++20 compiler, CMake, Ninja and Python 3 (tools the tests run), Boost.Context (fibers) and doctest (tests), and
# Clang 16 with its sanitizer runtimes and llvm-symbolizer (clang.unit_tests builds weft a second time with
# AddressSanitizer and UndefinedBehaviorSanitizer; race_check uses Clang's load/store tracing), and PoCL with the OpenCL headers and
# ICD loader (weft_bench's suite compares weft with OpenCL C on PoCL's CPU device; clinfo lists the devices), and
# range-v3 (weft/index_ranges.hpp, its tests and weft_bench), and gdb (the test of weft's gdb extension, tests/gdb).
# Uses sudo when not run as root.
set -eu
if [ "$(id -u)" -eq 0 ]; then as_root=""; else as_root="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -q
$as_root apt-get install -y -q --no-install-recommends g++ clang-16 cmake make ninja-build python3 libboost-context-dev doctest-dev \
  libclang-rt-16-dev llvm-16 pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers clinfo librange-v3-dev gdb
