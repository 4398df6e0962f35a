// Kernels that spin, waiting for another thread, stay on fibers: a
// stackless thread runs until its next barrier, so a thread of its block
// that it waits for would never run. A loop spins if its body is empty, if
// what it tests each round calls an atomic's load, test_and_set, test,
// compare_exchange_weak/strong, exchange or wait, an atomic function, or
// reads a volatile or atomic variable; an endless loop, if its body does.
// So does a kernel that calls a __device__ function that spins.
// Kernels that use atomics without waiting on them still convert. Run with
// --explain (stackless_spins.expected-stderr).
#include <cuda/atomic>
#include <cuda/std/atomic>

__device__ volatile int go;
__device__ cuda::std::atomic<int> arrivals;

__device__ void work(int* out) { out[threadIdx.x] += 1; }
__device__ void wait_for(cuda::std::atomic<int>* f) {
  while (f->load() == 0) {
    __threadfence_block();
  }
}

// Stay on fibers: the reasons --explain gives.
__global__ void lock_by_test_and_set(cuda::std::atomic_flag* lock, int* out) {
  __syncthreads();
  int n = 0;
  while (lock->test_and_set(cuda::std::memory_order_acquire)) {
    ++n;
  }
  out[threadIdx.x] = n;
  lock->clear(cuda::std::memory_order_release);
}
__global__ void load_with_work(cuda::std::atomic<int>* f, int* out) {
  __syncthreads();
  while (!f->load(cuda::std::memory_order_acquire)) {
    work(out);
  }
}
__global__ void compare_exchange(int* word, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_block> ref(word[0]);
  __syncthreads();
  int expected = 0;
  while (ref.compare_exchange_weak(expected, 1) == false) {
    expected = 0;
  }
  out[threadIdx.x] = expected;
}
__global__ void compare_exchange_in_for(int* word, int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_block> ref(word[0]);
  __syncthreads();
  int tries = 0;
  for (int expected = 0; !ref.compare_exchange_strong(expected, 1); expected = 0) {
    ++tries;
  }
  out[threadIdx.x] = tries;
}
__global__ void do_while_load(cuda::std::atomic<bool>* ready, int* out) {
  __syncthreads();
  int polls = 0;
  do {
    ++polls;
  } while (!ready->load());
  out[threadIdx.x] = polls;
}
__global__ void flag_test(cuda::std::atomic_flag* flag, int* out) {
  __syncthreads();
  while (!flag->test()) {
    out[threadIdx.x] += 1;
  }
}
__global__ void atomic_read_as_a_whole(int* out) {
  __shared__ cuda::std::atomic<int> turn;
  if (threadIdx.x == 0) turn.store(0);
  __syncthreads();
  if (threadIdx.x == 1) turn.store(1);
  while (turn != 1) {
    out[threadIdx.x] += 1;
  }
}
__global__ void device_atomic(int* out) {
  arrivals.fetch_add(1);
  __syncthreads();
  while (arrivals < 64) {
    out[threadIdx.x] += 1;
  }
}
__global__ void endless_exchange(cuda::std::atomic<int>* lock, int* out) {
  __syncthreads();
  for (;;) {
    if (lock->exchange(1) == 0) break;
    out[threadIdx.x] += 1;
  }
  lock->store(0);
}
__global__ void endless_cas(int* lock, int* out) {
  __syncthreads();
  while (true) {
    if (atomicCAS(lock, 0, 1) == 0) break;
    out[threadIdx.x] += 1;
  }
}
__global__ void endless_while_1(int* lock, int* out) {
  __syncthreads();
  while (1) {
    if (atomicExch(lock, 1) == 0) break;
    out[threadIdx.x] += 1;
  }
}
__global__ void atomic_wait(cuda::std::atomic<int>* f, int* out) {
  __syncthreads();
  f->wait(0, cuda::std::memory_order_acquire);
  out[threadIdx.x] = f->load();
}
__global__ void volatile_pointer(volatile int* vflag, int* out) {
  __syncthreads();
  while (*vflag == 0) {
    out[threadIdx.x] += 1;
  }
}
__global__ void volatile_cast(int* flag, int* out) {
  __syncthreads();
  while (*(volatile int*)flag == 0) {
    out[threadIdx.x] += 1;
  }
}
__global__ void volatile_shared(int* out) {
  __shared__ volatile int ready;
  if (threadIdx.x == 0) ready = 0;
  __syncthreads();
  if (threadIdx.x == 1) ready = 1;
  while (ready == 0) {
    out[threadIdx.x] += 1;
  }
}
__global__ void volatile_device_variable(int* out) {
  __syncthreads();
  while (go == 0) {
    out[threadIdx.x] += 1;
  }
}
__global__ void empty_loop_after_a_block(int* flag, int* out) {
  __syncthreads();
  if (out[0] == 0) {
    out[1] = 1;
  }
  while (flag[0] == 0)
    ;
}
__global__ void calls_a_spinning_function(cuda::std::atomic<int>* f, int* out) {
  __syncthreads();
  wait_for(f);
  out[threadIdx.x] = 1;
}
__global__ void nanosleep_backoff(int* flag, int* out) {
  __syncthreads();
  while (flag[0] == 0) {
    __nanosleep(100);
  }
  out[threadIdx.x] = flag[0];
}

// Convert: atomics used without waiting on them, and loops that do not wait.
__global__ void load_once(cuda::std::atomic<int>* ready, int* out) {
  int v = ready->load(cuda::std::memory_order_acquire);
  __syncthreads();
  out[threadIdx.x] = v;
}
__global__ void atomics_without_waiting(cuda::std::atomic<int>* counter, cuda::std::atomic_flag* flag, int* word,
                                        int* out) {
  cuda::atomic_ref<int, cuda::thread_scope_block> ref(word[0]);
  int first = counter->fetch_add(1);
  bool was_set = flag->test_and_set();
  int old = ref.exchange(threadIdx.x);
  int expected = 0;
  bool swapped = ref.compare_exchange_strong(expected, 1);
  atomicAdd(&out[64], 1);
  __syncthreads();
  out[threadIdx.x] = first + was_set + old + swapped + flag->test();
  flag->clear();
}
__global__ void plain_loops(const int* in, int* out, int n) {
  __shared__ int partial[64];
  int sum = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) sum += in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  int k = 0;
  while (k < 4) ++k;
  do {
    --k;
  } while (k > 0);
  out[threadIdx.x] = partial[(threadIdx.x + 1) % 64] + k;
}
__global__ void work_queue(cuda::std::atomic<int>* next, int* out, int n) {
  __syncthreads();
  int i;
  while ((i = next->fetch_add(1)) < n) {
    out[i] = i;
  }
  for (int j = next->load(); j < n; ++j) out[j] += 1;
}
__global__ void endless_work_queue(int* next, int* out, int n) {
  __syncthreads();
  while (true) {
    int i = atomicAdd(next, 1);
    if (i >= n) break;
    out[i] = i;
  }
}
__global__ void named_as_another_kernels_flag(int* out, int vflag) {
  __syncthreads();
  for (int i = 0; i < vflag; ++i) out[i] = i;
}
__global__ void volatile_in_the_body(int* data, int* out) {
  __shared__ int sums[64];
  sums[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) {
    volatile int* s = sums;
    for (int offset = 16; offset > 0; offset /= 2) s[threadIdx.x] = s[threadIdx.x] + s[threadIdx.x + offset];
  }
  __syncthreads();
  out[threadIdx.x] = sums[0];
}
