#!/bin/sh
# Drives gdb in batch mode over gdb_program (tools/gdb/weft_gdb.py): stops
# CUDA thread 5 of the block at the line marked "gdb stops here" and checks
# what `weft threads`, `weft thread`, `weft blocks` and the pretty-printers
# show. Skipped (exit 77) where gdb is not installed.
#   check_gdb.sh <gdb_program> <tools/gdb/weft_gdb.py> <gdb_program.cpp>
#   check_gdb.sh <gdb_program> --auto-load <gdb_program.cpp>
# With --auto-load the extension is not sourced: gdb must load it through the
# <gdb_program>-gdb.py beside the program (weft_gdb_autoload), once the
# program's directory is in its auto-load safe-path.
set -u
program=$1
script=$2
source=$3
if [ "$script" = "--auto-load" ]; then
  load_before="add-auto-load-safe-path $(dirname "$program")"
  load_after="info auto-load python-scripts"
else
  # Only the sourced extension: not a <program>-gdb.py that may lie beside.
  load_before="set auto-load python-scripts off"
  load_after="source $script"
fi
if ! command -v gdb >/dev/null 2>&1; then
  echo "gdb is not installed: the gdb extension's test is skipped"
  exit 77
fi
stop_line=$(grep -n "gdb stops here" "$source" | cut -d: -f1)
barrier_line=$(grep -n "threads 0 to 3 wait here" "$source" | cut -d: -f1)
output=$(WEFT_WORKERS=2 gdb -nx -batch -iex "$load_before" \
  -ex "set pagination off" -ex "set confirm off" -ex "$load_after" \
  -ex "break gdb_program.cpp:$stop_line" -ex run \
  -ex "weft threads" -ex "weft thread 3" -ex "weft blocks" \
  -ex "print shape" -ex "print code" -ex "print threadIdx" \
  -ex "python
for command in ['weft thread 7', 'weft thread 4', 'weft thread 99', 'thread 1', 'weft threads']:
    try:
        gdb.execute(command, to_string=command.startswith('thread '))
    except gdb.error as error:
        print('error: %s' % error)
try:
    field(global_variable('threadIdx'), 'no_such_member_')
except gdb.GdbError as error:
    print('error: %s' % error)
" -ex kill "$program" 2>&1)
# A container without the ptrace capability lets gdb start but not trace:
# nothing to check there.
if printf '%s\n' "$output" | grep -q "ptrace: Operation not permitted"; then
  echo "gdb may not trace processes here (ptrace: Operation not permitted): the gdb extension's test is skipped"
  exit 77
fi
status=0
expect() {
  if ! printf '%s\n' "$output" | grep -qE -- "$1"; then
    echo "missing from gdb's output: $1"
    status=1
  fi
}
if [ "$script" = "--auto-load" ]; then
  expect "^Yes +.*/$(basename "$program")-gdb.py *\$"
fi
expect "block \(0,0,0\) of grid \(1,1,1\), 64 threads of \(64,1,1\)"
expect "^  threadIdx \(0,0,0\)\.\.\(3,0,0\) +waiting at __syncthreads at .*gdb_program.cpp:$barrier_line\$"
expect "^  threadIdx \(4,0,0\) +exited\$"
expect "^\* threadIdx \(5,0,0\) +running at .*gdb_program.cpp:$stop_line\$"
expect "^  threadIdx \(6,0,0\)\.\.\(63,0,0\) +not started\$"
expect "^CUDA thread \(3,0,0\), waiting at __syncthreads"
expect "^#[0-9]+ .* gdb_probe_kernel \(.*\) at .*gdb_program.cpp:$barrier_line\$"
expect "^\*gdb thread [0-9]+ .*: blockIdx \(0,0,0\) of grid \(1,1,1\), blockDim \(64,1,1\)\$"
expect "^\\\$1 = \(5,1,1\)\$"
expect "^\\\$2 = cudaErrorIllegalAddress \(700\)\$"
expect "^\\\$3 = \(5,0,0\)\$"
expect "^error: weft thread: threadIdx \(7,0,0\) is not started: it has no stack to show\$"
expect "^error: weft thread: threadIdx \(4,0,0\) is exited: it has no stack to show\$"
expect "^error: weft thread: threadIdx \(99,0,0\) is outside the block \(64,1,1\)\$"
expect "^error: weft: the selected thread runs no block"
expect "^error: weft_gdb.py: uint3 has no field 'no_such_member_': this script does not match"
if [ $status -ne 0 ]; then
  echo "---- gdb's output ----"
  printf '%s\n' "$output"
fi
exit $status
