// libcu++'s <cuda/std/atomic> (cuda::std::atomic, atomic_ref, atomic_flag,
// the fences and the free functions) and <cuda/atomic>'s
// cuda::atomic_thread_fence: on the host, and in kernels on fibers and as
// stackless coroutines, where a thread spinning on a flag that another
// thread of its block sets must let that thread run.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/compat/cuda/atomic>  // brings <cuda/std/atomic> too
#include <weft/stackless_kernel.hpp>

#include "device_buffer.hpp"
#include "stream_gates.hpp"

#include <thread>
#include <type_traits>
#include <vector>

namespace {

static_assert(std::is_same_v<cuda::std::atomic<int>, cuda::atomic<int, cuda::thread_scope_system>>);
static_assert(std::is_same_v<cuda::std::atomic_ref<int>, cuda::atomic_ref<int, cuda::thread_scope_system>>);
static_assert(std::is_same_v<cuda::std::atomic_uint, cuda::std::atomic<unsigned>>);
static_assert(cuda::std::atomic<int>::is_always_lock_free);
// A __shared__ variable's type must be trivially constructible.
static_assert(std::is_trivially_default_constructible_v<cuda::std::atomic<int>>);

__device__ cuda::std::atomic<int> cuda_std_atomic_device_counter;

}  // namespace

TEST_CASE("cuda::std::atomic and its free functions on the host") {
  cuda::std::atomic<int> a{5};
  CHECK(a.load() == 5);
  CHECK(a.fetch_add(2, cuda::std::memory_order_relaxed) == 5);
  CHECK(++a == 8);
  CHECK((a -= 3) == 5);
  CHECK((a |= 8) == 13);
  CHECK((a &= 12) == 12);
  CHECK((a ^= 4) == 8);
  int expected = 7;
  CHECK_FALSE(a.compare_exchange_strong(expected, 9, cuda::std::memory_order_acq_rel, cuda::std::memory_order_acquire));
  CHECK(expected == 8);
  CHECK(a.compare_exchange_strong(expected, 9));
  CHECK(a.exchange(1) == 9);
  a.wait(2);  // the value differs: returns at once

  cuda::std::atomic_store(&a, 10);
  CHECK(cuda::std::atomic_load(&a) == 10);
  cuda::std::atomic_store_explicit(&a, 11, cuda::std::memory_order_release);
  CHECK(cuda::std::atomic_load_explicit(&a, cuda::std::memory_order_acquire) == 11);
  CHECK(cuda::std::atomic_exchange(&a, 12) == 11);
  CHECK(cuda::std::atomic_fetch_add(&a, 3) == 12);
  CHECK(cuda::std::atomic_fetch_sub_explicit(&a, 5, cuda::std::memory_order_relaxed) == 15);
  CHECK(cuda::std::atomic_fetch_or(&a, 1) == 10);
  CHECK(cuda::std::atomic_fetch_and(&a, 3) == 11);
  CHECK(cuda::std::atomic_fetch_xor(&a, 3) == 3);
  expected = 1;
  CHECK_FALSE(cuda::std::atomic_compare_exchange_weak_explicit(&a, &expected, 4, cuda::std::memory_order_seq_cst,
                                                               cuda::std::memory_order_relaxed));
  CHECK(expected == 0);
  CHECK(cuda::std::atomic_compare_exchange_strong(&a, &expected, 4));
  CHECK(a.load() == 4);
  CHECK(cuda::std::atomic_is_lock_free(&a));

  int slots[4] = {};
  cuda::std::atomic<int*> p{slots};
  CHECK(p.fetch_add(2) == slots);
  CHECK(++p == slots + 3);
  CHECK(cuda::std::atomic_fetch_sub(&p, 3) == slots + 3);
  CHECK(p.load() == slots);

  int plain = 3;
  cuda::std::atomic_ref<int> ref(plain);
  CHECK(ref.fetch_max(6) == 3);
  CHECK(plain == 6);

  cuda::std::atomic_flag flag = ATOMIC_FLAG_INIT;
  CHECK_FALSE(flag.test());
  CHECK_FALSE(flag.test_and_set(cuda::std::memory_order_acquire));
  CHECK(cuda::std::atomic_flag_test_and_set(&flag));
  CHECK(cuda::std::atomic_flag_test_explicit(&flag, cuda::std::memory_order_relaxed));
  cuda::std::atomic_flag_clear_explicit(&flag, cuda::std::memory_order_release);
  CHECK_FALSE(flag.test());
  cuda::std::atomic_flag_wait(&flag, true);  // clear: returns at once
  cuda::std::atomic_flag cleared;
  CHECK_FALSE(cleared.test());

  for (auto order : {cuda::std::memory_order_relaxed, cuda::std::memory_order_acquire, cuda::std::memory_order_release,
                     cuda::std::memory_order_acq_rel, cuda::std::memory_order_seq_cst}) {
    cuda::std::atomic_thread_fence(order);
    cuda::std::atomic_signal_fence(order);
    for (auto scope :
         {cuda::thread_scope_thread, cuda::thread_scope_block, cuda::thread_scope_device, cuda::thread_scope_system})
      cuda::atomic_thread_fence(order, scope);
  }
}

TEST_CASE("cuda::std::atomic's wait returns once another host thread changes the value") {
  cuda::std::atomic<int> a{0};
  cuda::std::atomic_flag flag;
  int data = 0;
  std::thread setter([&] {
    data = 42;
    a.store(1, cuda::std::memory_order_release);
    a.notify_all();
    flag.test_and_set(cuda::std::memory_order_release);
    flag.notify_one();
  });
  a.wait(0, cuda::std::memory_order_acquire);
  flag.wait(false, cuda::std::memory_order_acquire);
  CHECK(data == 42);
  setter.join();
}

TEST_CASE("cuda::std::atomic in kernels: counters, a lock of atomic_flag, a flag waited for") {
  exact_workers pool(2);
  device_buffer<int> counts(4);
  device_buffer<cuda::std::atomic_flag> lock(1);
  device_buffer<cuda::std::atomic<int>> ready(2);
  // Every thread of 8 blocks counts itself three ways and takes a spin lock
  // of test_and_set (threads of one block contend for it: each spinning
  // thread must let the holder run) to bump a plain counter.
  weft::launch(
      8, 64,
      [](int* count, cuda::std::atomic_flag* held, cuda::std::atomic<int>*) {
        cuda::std::atomic_ref<int>(count[0]).fetch_add(1, cuda::std::memory_order_relaxed);
        cuda::atomic_ref<int, cuda::thread_scope_device>(count[1])++;
        cuda_std_atomic_device_counter.fetch_add(1);
        while (held->test_and_set(cuda::std::memory_order_acquire)) {
        }
        count[2] = count[2] + 1;
        held->clear(cuda::std::memory_order_release);
      },
      counts.p, lock.p, ready.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<int> c = counts.to_host();
  CHECK(c[0] == 512);
  CHECK(c[1] == 512);
  CHECK(c[2] == 512);
  int device_counter = 0;
  REQUIRE(cudaMemcpyFromSymbol(&device_counter, cuda_std_atomic_device_counter, sizeof(int)) == cudaSuccess);
  CHECK(device_counter == 512);

  // Message passing: the last thread of each block publishes a word with a
  // release store; thread 0 of the block waits for it (wait) and the other
  // threads spin on acquire loads, all in the block that must let the last
  // thread run first. Block 1 then waits for block 0's flag.
  weft::launch(
      2, 64,
      [](int* words, cuda::std::atomic<int>* flags) {
        unsigned b = blockIdx.x;
        if (threadIdx.x == blockDim.x - 1) {
          if (b == 1) flags[0].wait(0, cuda::std::memory_order_acquire);
          words[b] = b == 1 ? words[0] + 10 : 7;
          flags[b].store(1, cuda::std::memory_order_release);
        } else if (threadIdx.x == 0) {
          flags[b].wait(0, cuda::std::memory_order_acquire);
        } else {
          while (flags[b].load(cuda::std::memory_order_acquire) == 0) {
          }
        }
        if (words[b] != (b == 1 ? 17 : 7)) atomicAdd(&words[3], 1);
      },
      counts.p, ready.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  c = counts.to_host();
  CHECK(c[0] == 7);
  CHECK(c[1] == 17);
  CHECK(c[3] == 0);
}

namespace {
__global__ weft::stackless_kernel cuda_std_atomic_stackless_count(cuda::std::atomic<int>* count, int* copies) {
  __shared__ cuda::std::atomic<int> local;
  if (threadIdx.x == 0) local.store(0, cuda::std::memory_order_relaxed);
  co_await weft::syncthreads();
  local.fetch_add(1, cuda::std::memory_order_relaxed);
  cuda::std::atomic_fetch_add(count, 1);
  co_await weft::syncthreads();
  if (threadIdx.x == 0) copies[blockIdx.x] = local.load();
}
}  // namespace

TEST_CASE("cuda::std::atomic in a stackless kernel") {
  device_buffer<cuda::std::atomic<int>> count(1);
  device_buffer<int> copies(4);
  weft::launch<cuda_std_atomic_stackless_count>(4, 96, count.p, copies.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<int> c = copies.to_host();
  for (int v : c) CHECK(v == 96);
  int total = 0;
  REQUIRE(cudaMemcpy(&total, count.p, sizeof total, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(total == 384);
}
