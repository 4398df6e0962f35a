#!/usr/bin/env bash
# ctest's race_check: builds tests/race/race_programs.cu with Clang and
# WEFT_SANITIZE=race (through weft_add_cuda_executable, as a user's project
# does), runs it twice, with its converted kernels on the stackless executor
# and then under WEFT_EXECUTOR=fibers, and checks each time that the racy
# kernels were reported with both threads, both source lines and the memory
# space, and nothing else.
# Skipped (exit 77) where no Clang 16 or later is installed.
# Usage: race_check.sh SOURCE_DIR BINARY_DIR
# WEFT_PORT_EXECUTABLE in the environment (ctest sets it to the main build's):
# that weft-port instead of building one in BINARY_DIR.
set -euo pipefail
source_dir=$1
binary_dir=$2

source "$source_dir/tests/clang/find_clang.sh"

cmake -S "$source_dir/tests/race/project" -B "$binary_dir" -DWEFT_SOURCE_DIR="$source_dir" \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Release -DWEFT_SANITIZE=race ${WEFT_PORT_EXECUTABLE:+"-DWEFT_PORT_EXECUTABLE=$WEFT_PORT_EXECUTABLE"} > /dev/null
log=$binary_dir/build.log
if ! cmake --build "$binary_dir" --target race_programs -j"$(nproc)" > "$log" 2>&1; then
  cat "$log"
  exit 1
fi
# weft-port converts in a race-check build too: the kernels with barriers and
# warp collectives run stackless unless WEFT_EXECUTOR=fibers.
port=$(find "$binary_dir" -path '*race_programs.weft-port*' -name 'race_programs.cu.cpp' | head -1)
failed=0
for kernel in tiled_matmul block_sum warp_neighbours shuffle_neighbours named_handover named_bystander \
  named_inline_handover named_inline_bystander named_write_after_arrive dropping_warp role_pipeline; do
  if ! grep -qE "weft::stackless_kernel $kernel\(" "$port"; then
    echo "race_check: weft-port did not make $kernel a stackless kernel ($port)"
    failed=1
  fi
done

# The region_* kernels get region versions, which run in a race-check build.
for kernel in region_matmul region_matmul_one_barrier region_matmul_no_first_barrier region_block_sum region_block_sum_one_barrier region_handover region_rows_overwrite \
  region_global_neighbours region_every_thread_writes; do
  if ! grep -qF "weft::register_region_version<&$kernel, " "$port"; then
    echo "race_check: weft-port wrote no region version for $kernel ($port)"
    failed=1
  fi
done

# Named barriers written inline in a kernel are awaited in the kernel's own
# coroutine, not through a stackless function.
if ! grep -qF "co_await weft::bar_arrive(1, 64);" "$port"; then
  echo "race_check: weft-port did not await the inline named barriers in their kernels ($port)"
  failed=1
fi

file=race_programs.cu
# Source lines are found by the marker comment above them, `// race-line:
# NAME`, so that adding a kernel to race_programs.cu renumbers nothing here:
# each marker's name becomes a variable holding the line below it.
while IFS=: read -r marker_line _ name; do
  declare "${name# }=$((marker_line + 1))"
done < <(grep -n -- '// race-line: ' "$source_dir/tests/race/$file" | sed 's|^\([0-9]*\):.*// race-line: |\1::|')
for executor in auto fibers; do
  output=$binary_dir/race_programs.$executor.output
  status=0
  WEFT_WORKERS=2 WEFT_EXECUTOR=$executor "$binary_dir/race_programs" > "$output" 2>&1 || status=$?
  echo "---- WEFT_EXECUTOR=$executor"
  cat "$output"
  ((status == 0)) || exit 1

  expect() {
    if ! grep -qE -- "$1" "$output"; then
      echo "race_check: the output (WEFT_EXECUTOR=$executor) lacks: $1"
      failed=1
    fi
  }
  # The tiled matmul without its second barrier: the next tile's write
  # against this tile's read, in __shared__ memory, both lines.
  expect "write-after-read hazard in kernel 'tiled_matmul\(.*\)' on __shared__ memory at 0x"
  expect "read  by block \([0-9]+,[0-9]+,0\) thread \([0-9]+,[0-9]+,0\) at .*$file:$matmul_read"
  expect "write by block \([0-9]+,[0-9]+,0\) thread \([0-9]+,[0-9]+,0\) at .*$file:($matmul_write_a|$matmul_write_b)"
  # The reduction without its barrier.
  expect "hazard in kernel 'block_sum\(.*\)' on __shared__ memory"
  expect "by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:$block_sum_step"
  # Two blocks writing one global word: both blocks named, and the allocation.
  expect "write-after-write hazard in kernel 'blocks_write_one_word\(int\*\)' on global memory \(byte 0 of the 256-byte allocation at 0x"
  expect "write by block \(0,0,0\) thread \(0,0,0\) at .*$file:$blocks_write_one_word"
  expect "write by block \(1,0,0\) thread \(0,0,0\) at .*$file:$blocks_write_one_word"
  # Lanes reading a neighbour's slot without __syncwarp, and across two
  # half-warp shuffles.
  expect "read-after-write hazard in kernel 'warp_neighbours\(int\*, bool\)' on __shared__ memory"
  expect "read-after-write hazard in kernel 'shuffle_neighbours\(int\*, bool\)' on __shared__ memory"
  # The dynamic shared buffer read across warps without a barrier.
  expect "hazard in kernel 'dynamic_shared_across_warps\(int\*, bool\)' on dynamic __shared__ memory \(byte [0-9]+ of the block's buffer\)"
  # A lock of atomics whose release has no fence before it.
  expect "hazard in kernel 'locked_counter\(int\*, int\*, bool\)' on global memory"
  # A thread that did not arrive at a named barrier, reading what one of its
  # arrivals wrote before it.
  expect "read-after-write hazard in kernel 'named_bystander\(int\*, bool\)' on __shared__ memory"
  expect "write by block \([01],0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$named_bystander_write in named_bystander"
  expect "read  by block \([01],0,0\) thread \((6[4-9]|[78][0-9]|9[0-5]),0,0\) at .*$file:$named_bystander_read in named_bystander"
  # The same, inline in a stackless kernel; and a consumer that only
  # arrives (bar.arrive), whose reads race with the producer's writes.
  expect "read-after-write hazard in kernel 'named_inline_bystander\(int\*\)' on __shared__ memory"
  expect "write by block \([01],0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$named_inline_bystander_write in named_inline_bystander"
  expect "read  by block \([01],0,0\) thread \((6[4-9]|[78][0-9]|9[0-5]),0,0\) at .*$file:$named_inline_bystander_read in named_inline_bystander"
  expect "read-after-write hazard in kernel 'named_inline_handover\(int\*, int\*, bool\)' on __shared__ memory"
  expect "read-after-write hazard in kernel 'named_inline_handover\(int\*, int\*, bool\)' on global memory"
  # A write after bar.arrive, read by the barrier's waiter: not ordered.
  # (Clang gives the store just after the co_await no line: "?".)
  expect "read-after-write hazard in kernel 'named_write_after_arrive\(int\*, int\*\)' on global memory"
  expect "write by block \([01],0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:($named_write_after_arrive_write|\?) in named_write_after_arrive"
  expect "read  by block \([01],0,0\) thread \((3[2-9]|[45][0-9]|6[0-3]),0,0\) at .*$file:$named_write_after_arrive_read in named_write_after_arrive"
  # Two blocks writing one word while the block whose worker holds the
  # word's shadow page spins on host memory the check does not see: the
  # other block's write is checked, not skipped.
  expect "write-after-write hazard in kernel 'page_holder_spins_unseen\(int\*, std::atomic<int>\*, int\*\)' on global memory"
  expect "write by block \(0,0,0\) thread \(0,0,0\) at .*$file:$page_holder_block0_write"
  expect "write by block \(1,0,0\) thread \(0,0,0\) at .*$file:$page_holder_block1_write"
  # Asynchronous copies in flight: a pipeline's tile read before its
  # consumer_wait, a barrier copy's source written before the wait, a
  # primitive's word read before __pipeline_wait_prior, shares of a
  # cg::memcpy_async read before cg::wait; each names the copy's line.
  copy_in_flight='in .*\((cuda::memcpy_async|__pipeline_memcpy_async|cg::memcpy_async), in flight until its wait\)'
  expect "read-after-write hazard in kernel 'pipelined_tiles\(.*\)' on __shared__ memory"
  expect "write by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:($pipelined_tiles_first_copy|$pipelined_tiles_next_copy) $copy_in_flight"
  expect "read  by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:$pipelined_tiles_early_read"
  expect "write-after-read hazard in kernel 'barrier_staged\(.*\)' on global memory \(byte [0-9]+ of the 16384-byte allocation"
  expect "read  by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:$barrier_staged_copy $copy_in_flight"
  expect "write by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:$barrier_staged_source_write"
  expect "read-after-write hazard in kernel 'primitive_staged\(.*\)' on __shared__ memory"
  expect "write by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:$primitive_staged_copy $copy_in_flight"
  expect "read  by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:$primitive_staged_early_read"
  expect "read-after-write hazard in kernel 'group_staged\(.*\)' on __shared__ memory"
  expect "write by block \([0-9]+,0,0\) thread \([0-9]+,0,0\) at .*$file:$group_staged_copy $copy_in_flight"
  # A device-scope barrier's phase orders its arrivals across blocks, not
  # warp 1, which never arrived: its read of the other block's word races
  # with that block's write (in either order, as the blocks run at once).
  expect "(read-after-write|write-after-read) hazard in kernel 'device_barrier_exchange\(.*\)' on global memory"
  expect "write by block \([01],0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$device_barrier_write"
  expect "read  by block \([01],0,0\) thread \((3[2-9]|[45][0-9]|6[0-3]),0,0\) at .*$file:$device_barrier_bystander_read"
  # A thread that dropped out of a barrier waits for nothing: its read of
  # another warp's word is not ordered (after that warp's write on fibers,
  # before it stackless). (Clang may give the load after the drop no line:
  # "?".)
  expect "(read-after-write|write-after-read) hazard in kernel 'dropping_warp\(int\*, bool\)' on __shared__ memory"
  expect "write by block \([01],0,0\) thread \(0,0,0\) at .*$file:$dropping_warp_write"
  expect "read  by block \([01],0,0\) thread \(63,0,0\) at .*$file:($dropping_warp_dropper_read|\?) in dropping_warp"
  # A pipeline's stage read by a consumer before its consumer_wait, and
  # overwritten by a producer that did not acquire it.
  expect "read-after-write hazard in kernel 'role_pipeline\(int\*, int, int\)' on __shared__ memory"
  expect "write by block \([01],0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$role_pipeline_write"
  expect "read  by block \([01],0,0\) thread \((3[2-9]|[45][0-9]|6[0-3]),0,0\) at .*$file:$role_pipeline_early_read"
  expect "write by block \([01],0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$role_pipeline_overwrite"
  expect "read  by block \([01],0,0\) thread \((3[2-9]|[45][0-9]|6[0-3]),0,0\) at .*$file:$role_pipeline_read"
  # Kernels of two streams that no event, host synchronisation or legacy
  # stream orders: both kernels named, each thread with its kernel (weft
  # may have run either first, or both at once).
  writer="'stream_writer\\(int\\*\\)'" reader="'stream_reader\\(int const\\*, int\\*\\)'"
  expect "(read-after-write|write-after-read) hazard between kernels ($writer and $reader|$reader and $writer) \\(launches that stream and event order do not order\\) on global memory \\(byte 192 of the 256-byte allocation at 0x"
  expect "write by kernel $writer block \\(0,0,0\\) thread \\(0,0,0\\) at .*$file:$stream_writer_write"
  expect "read  by kernel $reader block \\([01],0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$stream_reader_read"
  expect "hazard between kernels '(nonblocking_writer\\(int\\*\\)|nonblocking_reader\\(int const\\*, int\\*\\))' and '(nonblocking_reader|nonblocking_writer)"
  # libcu++'s atomics: a flag stored relaxed with no fence before it orders
  # nothing, between blocks and within one, nor does a relaxed test_and_set
  # without the release fence of libcu++'s MessagePassing example.
  expect "read-after-write hazard in kernel 'std_atomic_between_blocks\(.*\)' on global memory"
  expect "write by block \(0,0,0\) thread \(0,0,0\) at .*$file:$std_atomic_between_blocks_write"
  expect "read  by block \(1,0,0\) thread \(0,0,0\) at .*$file:$std_atomic_between_blocks_read"
  expect "read-after-write hazard in kernel 'std_atomic_in_block\(.*\)' on global memory"
  expect "write by block \(0,0,0\) thread \(0,0,0\) at .*$file:$std_atomic_in_block_write"
  expect "read  by block \(0,0,0\) thread \(63,0,0\) at .*$file:$std_atomic_in_block_read"
  expect "read-after-write hazard in kernel 'std_atomic_flag_fenced\(.*\)' on global memory"
  expect "write by block \(0,0,0\) thread \(0,0,0\) at .*$file:$std_atomic_flag_fenced_write"
  expect "read  by block \(1,0,0\) thread \(0,0,0\) at .*$file:$std_atomic_flag_fenced_read"
  # Distributed shared memory (cluster.map_shared_rank): the owner block
  # reading its bins without the final cluster.sync(), against the other
  # block's atomicAdd into them (named at the kernel's line, not weft's);
  # block 1's plain write into block 0's __shared__ word against block 0's
  # read.
  # (The pair of lines may be met first between the owner's own atomicAdd
  # and read, which a launch with clusters also records: "__shared__".)
  expect "(read-after-write|write-after-read) hazard in kernel 'cluster_bins\(int const\*, int\*, bool\)' on (distributed __shared__ memory of block \([01],0,0\)|__shared__ memory)"
  expect "read  by block \([01],0,0\) thread \([0-9]+,0,0\) at .*$file:$cluster_bins_read in cluster_bins"
  expect "write by block \([01],0,0\) thread \([0-9]+,0,0\) at .*$file:$cluster_bins_add in cluster_bins"
  expect "(read-after-write|write-after-read) hazard in kernel 'cluster_remote_write\(int\*, int\)' on distributed __shared__ memory of block \(0,0,0\)"
  expect "write by block \(1,0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$cluster_remote_store in cluster_remote_write"
  expect "read  by block \(0,0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$cluster_owner_load in cluster_remote_write"
  # A write-after-read against the oldest of three readers: the two later
  # ones are of the writer's warp and a __syncwarp orders them before it.
  expect "write-after-read hazard in kernel 'three_readers_then_writer\(int\*, bool\)' on __shared__ memory"
  expect "read  by block \(0,0,0\) thread \(0,0,0\) at .*$file:$three_readers_read"
  expect "write by block \(0,0,0\) thread \(35,0,0\) at .*$file:$three_readers_write"
  # A cuda::barrier in block 0's __shared__ memory that block 1 arrives at
  # through cluster.map_shared_rank: block 1's write after its arrival
  # races with block 0's read after its wait.
  expect "(read-after-write|write-after-read) hazard in kernel 'cluster_barrier_handover\(int\*, bool\)' on distributed __shared__ memory of block \(0,0,0\)"
  expect "write by block \(1,0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$cluster_handover_late_write in cluster_barrier_handover"
  expect "read  by block \(0,0,0\) thread \(([0-9]|[1-5][0-9]|6[0-3]),0,0\) at .*$file:$cluster_handover_read in cluster_barrier_handover"
  # Block 0's atomicAdd on its own __shared__ word, in a launch with
  # clusters, against block 1's plain read of it with no cluster.sync().
  expect "(read-after-write|write-after-read) hazard in kernel 'cluster_owner_atomics\(int\*, bool\)' on distributed __shared__ memory of block \(0,0,0\)"
  expect "write by block \(0,0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$cluster_owner_atomic_add in cluster_owner_atomics"
  expect "read  by block \(1,0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$cluster_peer_counter_read in cluster_owner_atomics"
  # Lane 1's write, not ordered before lane 0's arrival at a device-scope
  # barrier by a __syncwarp, against the other block's read after its wait.
  expect "(read-after-write|write-after-read) hazard in kernel 'lane_then_device_barrier\(.*\)' on global memory"
  expect "write by block \([01],0,0\) thread \(1,0,0\) at .*$file:$lane_barrier_write"
  expect "read  by block \([01],0,0\) thread \(0,0,0\) at .*$file:$lane_barrier_read"
  # A device-scope pipeline's consumer (block 1) reading a stage before its
  # consumer_wait, against the producers (block 0).
  expect "(read-after-write|write-after-read) hazard in kernel 'device_pipeline_handover\(.*\)' on global memory"
  expect "write by block \(0,0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$device_pipeline_write"
  expect "read  by block \(1,0,0\) thread \(([0-9]|[12][0-9]|3[01]),0,0\) at .*$file:$device_pipeline_early_read"
  # A kernel and a copy or set of another stream: the kernel with its
  # thread and line, the copy by its call and stream.
  copy_reader="kernel 'copy_reader\\(int const\\*, int\\*\\)'" copy="cudaMemcpyAsync \\(stream 0x[0-9a-f]+\\)"
  expect "(read-after-write|write-after-read) hazard between ($copy_reader and $copy|$copy and $copy_reader) \\(commands that stream and event order do not order\\) on global memory \\(byte [0-9]+ of the 128-byte allocation at 0x"
  expect "read  by $copy_reader block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$copy_reader_read"
  expect "write by $copy\$"
  set_reader="kernel 'set_reader\\(int const\\*, int\\*\\)'" set="cudaMemsetAsync \\(stream 0x[0-9a-f]+\\)"
  expect "(read-after-write|write-after-read) hazard between ($set_reader and $set|$set and $set_reader) \\(commands that"
  expect "read  by $set_reader block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$set_reader_read"
  expect "write by $set\$"
  expect "write by kernel 'copy_source_writer\\(int\\*\\)' block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$copy_source_writer_write"
  expect "read  by $copy\$"
  # A graph's memset node and a kernel node with no edge between them, and
  # a captured copy and a kernel of another captured stream with no event
  # between them: the node by its kind, the kernel with its thread and line.
  set_node_reader="kernel 'graph_set_reader\\(int const\\*, int\\*\\)'" set_node="graph memset node"
  expect "(read-after-write|write-after-read) hazard between ($set_node_reader and $set_node|$set_node and $set_node_reader) \\(commands that stream and event order do not order\\) on global memory \\(byte [0-9]+ of the 128-byte allocation at 0x"
  expect "read  by $set_node_reader block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$graph_set_reader_read"
  expect "write by $set_node\$"
  copy_node_reader="kernel 'graph_copy_reader\\(int const\\*, int\\*\\)'" copy_node="graph memcpy node"
  expect "(read-after-write|write-after-read) hazard between ($copy_node_reader and $copy_node|$copy_node and $copy_node_reader) \\(commands that"
  expect "read  by $copy_node_reader block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$graph_copy_reader_read"
  expect "write by $copy_node\$"
  # The first and third of three launches, though the second, ordered
  # after the first, read the word between them; and two launches 1100
  # launches apart.
  expect "read-after-write hazard between kernels 'chain_writer\\(int\\*\\)' and 'chain_reader\\(int const\\*, int\\*\\)'"
  expect "write by kernel 'chain_writer\\(int\\*\\)' block \\(0,0,0\\) thread \\(0,0,0\\) at .*$file:$chain_writer_write"
  expect "read  by kernel 'chain_reader\\(int const\\*, int\\*\\)' block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$chain_reader_read"
  expect "(read-after-write|write-after-read) hazard between kernels '(far_writer\\(int\\*\\)|far_reader\\(int const\\*, int\\*\\))' and '(far_reader|far_writer)"
  expect "write by kernel 'far_writer\\(int\\*\\)' block \\(0,0,0\\) thread \\(0,0,0\\) at .*$file:$far_writer_write"
  # Two threads writing one byte, and a byte against its whole word, in
  # global and __shared__ memory (adjacent bytes and shorts are silent:
  # race_programs counts each case's hazards).
  expect "write-after-write hazard in kernel 'adjacent_bytes\\(unsigned char\\*, bool\\)' on global memory"
  expect "write by block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$adjacent_bytes_write"
  expect "write-after-write hazard in kernel 'adjacent_shared_bytes\\(unsigned char\\*, bool\\)' on __shared__ memory"
  expect "write by block \\(0,0,0\\) thread \\([0-9]+,0,0\\) at .*$file:$adjacent_shared_bytes_write"
  expect "(read-after-write|write-after-read) hazard in kernel 'byte_then_word\\(.*\\)' on global memory"
  expect "write by block \\(0,0,0\\) thread \\(1,0,0\\) at .*$file:$byte_then_word_write"
  expect "read  by block \\(0,0,0\\) thread \\(32,0,0\\) at .*$file:$byte_then_word_read"
  expect "(read-after-write|write-after-read) hazard in kernel 'byte_then_shared_word\\(int\\*\\)' on __shared__ memory"
  expect "write by block \\(0,0,0\\) thread \\(1,0,0\\) at .*$file:$byte_then_shared_word_write"
  expect "read  by block \\(0,0,0\\) thread \\(32,0,0\\) at .*$file:$byte_then_shared_word_read"
  # Kernels with region versions: the tiled matmul without its second
  # barrier (the pairs differ from the stackless kernel's: race_programs.cu
  # says why), the reduction without its barrier between steps, and each
  # thread reading its neighbour's global word.
  expect "hazard in kernel 'region_matmul_one_barrier\(.*\)' on __shared__ memory"
  expect "write by block \(0,0,0\) thread \([0-9]+,[0-9]+,0\) at .*$file:($region_matmul_write_a|$region_matmul_write_b) in region_matmul_one_barrier\("
  expect "read  by block \(0,0,0\) thread \([0-9]+,[0-9]+,0\) at .*$file:$region_matmul_read in region_matmul_one_barrier\("
  # Without its first barrier: its tiles' reads stay checked (weft-port
  # --race-check reads untraced only in a region that writes none of them).
  expect "hazard in kernel 'region_matmul_no_first_barrier\(.*\)' on __shared__ memory"
  expect "by block \(0,0,0\) thread \([0-9]+,[0-9]+,0\) at .*$file:$region_matmul_early_read in region_matmul_no_first_barrier\("
  expect "write-after-read hazard in kernel 'region_block_sum_one_barrier\(float const\*, float\*\)' on __shared__ memory"
  expect "read  by block \(0,0,0\) thread \(0,0,0\) at .*$file:$region_block_sum_step in region_block_sum_one_barrier\("
  expect "write by block \(0,0,0\) thread \(1,0,0\) at .*$file:$region_block_sum_step in region_block_sum_one_barrier\("
  expect "write-after-read hazard in kernel 'region_global_neighbours\(int\*\)' on global memory \(byte 0 of the 512-byte allocation"
  expect "read  by block \(0,0,0\) thread \(63,0,0\) at .*$file:$region_global_read in region_global_neighbours\("
  expect "write by block \(0,0,0\) thread \(0,0,0\) at .*$file:$region_global_write in region_global_neighbours\("
  # Every thread writing one word: the region version's loop keeps each
  # thread's store (without its compiler fences, Clang kept one, the last).
  expect "write-after-write hazard in kernel 'region_every_thread_writes\(float\*\)' on __shared__ memory"
  expect "write by block \(0,0,0\) thread \(1,0,0\) at .*$file:$region_every_thread_write in region_every_thread_writes\("
  # Threads named by x and y, in a region version's rows and in a kernel
  # without barriers.
  expect "(read-after-write|write-after-read) hazard in kernel 'region_rows_overwrite\(int\*\)' on __shared__ memory"
  expect "read  by block \(0,0,0\) thread \(5,1,0\) at .*$file:$region_rows_read in region_rows_overwrite\("
  expect "write by block \(0,0,0\) thread \(3,2,0\) at .*$file:$region_rows_write in region_rows_overwrite\("
  expect "(read-after-write|write-after-read) hazard in kernel 'rows_overwrite\(int\*\)' on global memory"
  expect "read  by block \(1,1,0\) thread \(5,1,0\) at .*$file:$rows_read"
  expect "write by block \(1,1,0\) thread \(3,2,0\) at .*$file:$rows_write"
  if [[ $executor == auto ]]; then
    # Run as region versions: the lines are in the kernel's own name, not in
    # its coroutine's (`[clone .resume]`).
    expect "at .*$file:$region_block_sum_step in region_block_sum_one_barrier\(float const\*, float\*\)\$"
    expect "at .*$file:$region_global_write in region_global_neighbours\(int\*\)\$"
  fi
  if grep -E "hazard in kernel '(region_matmul|region_block_sum|region_handover)\(" "$output"; then
    echo "race_check: a region version without races was reported (WEFT_EXECUTOR=$executor, above)"
    failed=1
  fi
  expect "RACECHECK SUMMARY: [0-9]+ hazards displayed"
  # No kernel that is free of races is named.
  if grep -E "hazard in kernel '(count_with_atomics|count_with_atomics_stackless|write_word|read_word|last_block_sums|grid_exchange|blocks_write_own_words|shared_locked_counter|barrier_completion_count|named_handover|stream_writer|legacy_stream_step|std_atomic_device_variables|far_step|adjacent_shorts)" "$output"; then
    echo "race_check: a kernel without races was reported (WEFT_EXECUTOR=$executor, above)"
    failed=1
  fi
done

# The region versions' reports, within one stretch between barriers, are
# the stackless kernels' (WEFT_EXECUTOR=stackless), with the same threads.
# A report is three lines; addresses differ from run to run.
region_reports() {
  local kernels='region_(block_sum_one_barrier|global_neighbours|every_thread_writes)'
  awk -v header="^weft racecheck: .* kernel '$kernels\\(" '$0 ~ header { n = 3 } n > 0 { print; n-- }' "$1" |
    sed -E 's/0x[0-9a-f]+/0x/g; s/ \[clone \.resume\]$//'
}
stackless_output=$binary_dir/race_programs.stackless_regions.output
status=0
WEFT_WORKERS=2 WEFT_EXECUTOR=stackless "$binary_dir/race_programs" regions > "$stackless_output" 2>&1 || status=$?
if ((status != 0)); then
  cat "$stackless_output"
  exit 1
fi
if [[ -z $(region_reports "$stackless_output") ]] ||
  ! diff <(region_reports "$binary_dir/race_programs.auto.output") <(region_reports "$stackless_output"); then
  echo "race_check: the region versions' reports (<) are not the stackless kernels' (>, $stackless_output)"
  failed=1
fi
# The reports' text is that of an addr2line started for each address
# (WEFT_RACE_ADDR2LINE_ONCE=1), though the run above asked the kept ones
# (kept_symbolizer.hpp) a hundred addresses before these: a single kept
# addr2line named some of these lines "in operator()".
once_output=$binary_dir/race_programs.regions_once.output
status=0
WEFT_RACE_ADDR2LINE_ONCE=1 WEFT_WORKERS=2 WEFT_EXECUTOR=auto "$binary_dir/race_programs" regions > "$once_output" 2>&1 ||
  status=$?
if ((status != 0)); then
  cat "$once_output"
  exit 1
fi
if [[ -z $(region_reports "$once_output") ]] ||
  ! diff <(region_reports "$binary_dir/race_programs.auto.output") <(region_reports "$once_output"); then
  echo "race_check: the reports' lines (<) are not those of an addr2line started for each address (>, $once_output)"
  failed=1
fi
exit $failed
