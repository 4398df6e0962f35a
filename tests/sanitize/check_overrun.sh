#!/usr/bin/env bash
# Runs tests/sanitize/overrun.cu built with WEFT_SANITIZE=address and checks
# ASan's report: the one-past-the-end write is found, in the kernel, and no
# warning comes before it (fiber switches are announced to ASan).
# Usage: check_overrun.sh PROGRAM
set -uo pipefail
program=$1
output=$("$program" 2>&1)
status=$?
fail() {
  echo "$output"
  echo "FAIL: $1"
  exit 1
}
((status != 0)) || fail "the program exited with 0: ASan found nothing"
grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" <<< "$output" || fail "no heap-buffer-overflow report"
grep -q "WRITE of size 4" <<< "$output" || fail "the report does not name a 4-byte write"
grep -q "0 bytes after 4000-byte region" <<< "$output" || fail "the report does not place the write just past the array"
if grep -q "WARNING" <<< "$(sed '/ERROR: AddressSanitizer/,$d' <<< "$output")"; then
  fail "ASan warned before its report"
fi
grep -q "ignoring requested __asan_handle_no_return" <<< "$output" && fail "ASan warned about a stack switch"
# With a symbolizer, the report names the kernel's line.
if grep -q "in shift_left" <<< "$output"; then
  grep -q "overrun.cu:16" <<< "$output" || fail "the report does not name overrun.cu:16"
fi
echo "$output" | head -4
echo "PASS"
