// The memory check (detail/scheduler/memory_check.hpp): in a build with
// AddressSanitizer, a CUDA thread's bad access is reported in
// compute-sanitizer's terms (the access, the kernel, block and thread, the
// line, and what the address missed, with the call and line that made the
// memory), and with ASan recovering (-fsanitize-recover=address,
// halt_on_error=0) the launch fails with a sticky cudaErrorIllegalAddress.
// Each case runs its scenario in a child process (this executable again,
// running only the test case "memory check: a scenario in a child
// process"), so that a report that ends the process ends only the child;
// the parent checks the child's output. Without ASan the cases say that
// they are skipped.
#include <doctest/doctest.h>
#include <weft.hpp>
#include <weft/stackless_kernel.hpp>

#include <fcntl.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "sanitizer_checks.hpp"
#include "text_checks.hpp"

// Each access and allocation whose line a report must name is on the line
// after the constant that records it.
namespace {

constexpr const char* memcheck_scenario_variable = "WEFT_MEMCHECK_SCENARIO";
constexpr const char* memcheck_child_case = "memory check: a scenario in a child process";

}  // namespace

constexpr unsigned memcheck_write_line = __LINE__ + 2;
__global__ void memcheck_write_past(int* p, int n) {
  if (blockIdx.x == 1 && threadIdx.x == 5) p[n] = 1;
}

// The same bad write from a stackless kernel (weft-port converts a kernel
// with barriers to one): the report is the fiber executor's.
constexpr unsigned memcheck_stackless_line = __LINE__ + 4;
weft::stackless_kernel memcheck_stackless_write_past(int* p, int n) {
  p[threadIdx.x] = 0;
  co_await weft::syncthreads();
  if (blockIdx.x == 1 && threadIdx.x == 5) p[n] = 1;
  co_await weft::syncthreads();
}

// The same from a kernel whose name weft-port saw used as a value: it stays
// void and runs a stackless body of weft-port's naming in its place
// (docs/porting.md); the report names the kernel the user wrote.
constexpr unsigned memcheck_named_line = __LINE__ + 4;
weft::stackless_kernel weft_port_stackless_memcheck_named_write_past(int* p, int n) {
  p[threadIdx.x] = 0;
  co_await weft::syncthreads();
  if (blockIdx.x == 1 && threadIdx.x == 5) p[n] = 1;
}
__global__ void memcheck_named_write_past(int* p, int n) {
  weft::run_on_fiber(weft_port_stackless_memcheck_named_write_past(p, n));
}
[[maybe_unused]] const bool memcheck_named_registered =
    weft::register_kernel<&memcheck_named_write_past, &weft_port_stackless_memcheck_named_write_past>();

constexpr unsigned memcheck_atomic_line = __LINE__ + 2;
__global__ void memcheck_atomic_past(int* p, int n) {
  if (threadIdx.x == 9) atomicAdd(p + n, 1);
}

constexpr unsigned memcheck_read_line = __LINE__ + 2;
__global__ void memcheck_read_at(const float* p, int index, float* out) {
  if (threadIdx.x == 2) *out = p[index];
}

constexpr unsigned memcheck_pitched_line = __LINE__ + 2;
__global__ void memcheck_write_pitched(char* base, std::size_t offset) {
  if (threadIdx.x == 0 && threadIdx.y == 1) base[offset] = 1;
}

constexpr unsigned memcheck_shared_line = __LINE__ + 2;
__global__ void memcheck_write_dynamic_shared(int index) {
  if (threadIdx.x == 3) weft::dynamic_shared<int>()[index] = 7;
}

__device__ int memcheck_device_array[10];
__constant__ float memcheck_constant_array[16];

constexpr unsigned memcheck_device_line = __LINE__ + 4;
// Indexed through pointers: UBSan (in CI's ASan+UBSan build) checks an
// index into an array whose size it sees, and would stop first.
__global__ void memcheck_write_device_array(int index) {
  if (threadIdx.x == 4) (memcheck_device_array + 0)[index] = 1;
}

__global__ void memcheck_read_constant_array(int index, float* out) {
  if (threadIdx.x == 1) *out = (memcheck_constant_array + 0)[index];
}

constexpr unsigned memcheck_stack_line = __LINE__ + 5;
__global__ void memcheck_write_local(int index, int* out) {
  int local[8];
  for (int i = 0; i < 8; ++i) local[i] = i;
  volatile int at = index;
  if (threadIdx.x == 6) (local + 0)[at] = 1;
  *out = local[threadIdx.x % 8];
}

// `__shared__` arrays: an index one past or one before is reported with the
// array's name. (The file's last `__shared__` array has its own case,
// below.)
constexpr unsigned memcheck_shared_past_line = __LINE__ + 7;
__global__ void memcheck_write_shared_past(int index, float* out) {
  __shared__ float memcheck_shared_tile[256];
  __shared__ int memcheck_shared_count;
  memcheck_shared_tile[threadIdx.x] = 1.0f;
  if (threadIdx.x == 0) memcheck_shared_count = 0;
  volatile int at = index;
  if (threadIdx.x == 7) (memcheck_shared_tile + 0)[at] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = memcheck_shared_tile[(threadIdx.x + 1) % 256] + static_cast<float>(memcheck_shared_count);
}

constexpr unsigned memcheck_shared_before_line = __LINE__ + 8;
__global__ void memcheck_read_shared_before(int index, float* out) {
  __shared__ float memcheck_shared_front[256];
  __shared__ float memcheck_shared_back[256];
  memcheck_shared_front[threadIdx.x] = 1.0f;
  memcheck_shared_back[threadIdx.x] = 2.0f;
  __syncthreads();
  volatile int at = index;
  if (threadIdx.x == 2) out[0] = (memcheck_shared_front + 0)[at];
  out[threadIdx.x + 1] = memcheck_shared_back[threadIdx.x];
}

// The same from a stackless kernel, whose `__shared__` variables are the
// coroutine's statics.
constexpr unsigned memcheck_stackless_shared_line = __LINE__ + 8;
weft::stackless_kernel memcheck_stackless_shared_past(int index, float* out) {
  __shared__ float memcheck_coroutine_tile[64];
  __shared__ float memcheck_coroutine_sums[2];
  memcheck_coroutine_tile[threadIdx.x] = 1.0f;
  if (threadIdx.x < 2) memcheck_coroutine_sums[threadIdx.x] = 0.0f;
  co_await weft::syncthreads();
  volatile int at = index;
  if (threadIdx.x == 3) (memcheck_coroutine_tile + 0)[at] = 2.0f;
  co_await weft::syncthreads();
  out[threadIdx.x] = memcheck_coroutine_tile[63 - threadIdx.x] + memcheck_coroutine_sums[threadIdx.x % 2];
}

// A correct kernel with several `__shared__` arrays of different types and
// sizes, all indexed to their ends: the memory check says nothing. The
// alignment written before `__shared__` holds for the array in an ASan
// build too (where it lands on the guard: cuda/keywords.hpp).
__global__ void memcheck_shared_arrays_in_bounds(float* out, unsigned* misaligned) {
  __shared__ float memcheck_values[64];
  __shared__ int memcheck_counts[3];
  __shared__ double memcheck_partial[17];
  __shared__ char memcheck_flags[5];
  alignas(16) __shared__ float memcheck_aligned[4];
  const unsigned t = threadIdx.x;
  if (t < 4) memcheck_aligned[t] = 0.0f;
  if (t == 0) *misaligned = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(memcheck_aligned) % 16);
  memcheck_values[t] = static_cast<float>(t);
  if (t < 3) memcheck_counts[t] = static_cast<int>(t);
  if (t < 17) memcheck_partial[t] = 0.5 * t;
  if (t < 5) memcheck_flags[t] = static_cast<char>(t);
  __syncthreads();
  if (t == 0) {
    float sum = 0.0f;
    for (int i = 0; i < 64; ++i) sum += memcheck_values[i];
    for (int i = 0; i < 3; ++i) sum += static_cast<float>(memcheck_counts[i]);
    for (int i = 0; i < 17; ++i) sum += static_cast<float>(memcheck_partial[i]);
    for (int i = 0; i < 5; ++i) sum += static_cast<float>(memcheck_flags[i]);
    for (int i = 0; i < 4; ++i) sum += memcheck_aligned[i];
    *out = sum;  // 2016 + 3 + 68 + 10
  }
}

// Kernels whose `__shared__` arrays are statics of a function template, an
// inline function and a lambda: the compilers lay those out after the
// unit's other thread-locals, each in a section of its own, so the last of
// them (and, where GCC optimises, the first) has no declaration's guard on
// one side; the unit's edge guards close it (checks/shared_guard.hpp). Each
// case reads one element past and one before the kernel's last array.
constexpr unsigned memcheck_template_shared_line = __LINE__ + 9;
template <class Element>
__global__ void memcheck_read_template_shared(int index, Element* out) {
  __shared__ Element memcheck_template_front[32];
  __shared__ Element memcheck_template_tile[32];
  memcheck_template_front[threadIdx.x] = Element(1);
  memcheck_template_tile[threadIdx.x] = Element(2);
  __syncthreads();
  volatile int at = index;
  if (threadIdx.x == 5) out[0] = (memcheck_template_tile + 0)[at];
  out[threadIdx.x + 1] = memcheck_template_tile[31 - threadIdx.x] + memcheck_template_front[threadIdx.x];
}

constexpr unsigned memcheck_inline_shared_line = __LINE__ + 6;
inline __global__ void memcheck_read_inline_shared(int index, float* out) {
  __shared__ float memcheck_inline_tile[32];
  memcheck_inline_tile[threadIdx.x] = 1.0f;
  __syncthreads();
  volatile int at = index;
  if (threadIdx.x == 5) out[0] = (memcheck_inline_tile + 0)[at];
  out[threadIdx.x + 1] = memcheck_inline_tile[31 - threadIdx.x];
}

constexpr unsigned memcheck_lambda_shared_line = __LINE__ + 6;
inline constexpr auto memcheck_read_lambda_shared = [](int index, float* out) {
  __shared__ float memcheck_lambda_tile[32];
  memcheck_lambda_tile[threadIdx.x] = 1.0f;
  __syncthreads();
  volatile int at = index;
  if (threadIdx.x == 5) out[0] = (memcheck_lambda_tile + 0)[at];
  out[threadIdx.x + 1] = memcheck_lambda_tile[31 - threadIdx.x];
};

// Two arrays in one declaration share its one guard; the 128-byte alignment
// of every `__shared__` variable leaves padding after the 16-byte first, and
// the padding beside a `__shared__` variable is poisoned too.
constexpr unsigned memcheck_pair_shared_line = __LINE__ + 5;
__global__ void memcheck_write_pair_shared(int index, float* out) {
  __shared__ float memcheck_pair_first[4], memcheck_pair_second[4];
  if (threadIdx.x < 4) memcheck_pair_first[threadIdx.x] = memcheck_pair_second[threadIdx.x] = 1.0f;
  volatile int at = index;
  if (threadIdx.x == 5) (memcheck_pair_first + 0)[at] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = memcheck_pair_first[threadIdx.x % 4] + memcheck_pair_second[threadIdx.x % 4];
}

// The file's last `__shared__` array, alone in its kernel: no other
// declaration's guard lies on one of its sides (after it with Clang, before
// it with GCC when it optimises), which the translation unit's trailing
// guard closes (checks/shared_guard.hpp). Keep it the file's last.
constexpr unsigned memcheck_last_shared_line = __LINE__ + 6;
__global__ void memcheck_read_last_shared(int index, float* out) {
  __shared__ float memcheck_last_tile[32];
  memcheck_last_tile[threadIdx.x] = 1.0f;
  __syncthreads();
  volatile int at = index;
  if (threadIdx.x == 5) out[0] = (memcheck_last_tile + 0)[at];
  out[threadIdx.x + 1] = memcheck_last_tile[31 - threadIdx.x];
}

namespace {

// What the child prints after its launches: the code of the first
// synchronising call, and that it went on.
void memcheck_finish(const char* label) {
  cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "%s: %s; still running\n", label, cudaGetErrorName(e));
}

constexpr unsigned memcheck_malloc_line = __LINE__ + 4;
void memcheck_cudaMalloc() {
  int* p = nullptr;
  // The kernel is launched by address here and at compile time elsewhere.
  cudaMalloc(&p, 100 * sizeof(int));
  weft::launch(2, 64, memcheck_write_past, p, 100);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_stackless_malloc_line = __LINE__ + 3;
void memcheck_stackless() {
  int* p = nullptr;
  cudaMalloc(&p, 100 * sizeof(int));
  weft::launch<memcheck_stackless_write_past>(2, 64, p, 100);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_named_malloc_line = __LINE__ + 3;
void memcheck_named() {
  int* p = nullptr;
  cudaMalloc(&p, 100 * sizeof(int));
  weft::launch(2, 64, memcheck_named_write_past, p, 100);
  memcheck_finish("sync");
}

// Memory the program allocated itself, with no CUDA call on its stack: the
// report names the line that allocated it, with no call before "at".
constexpr unsigned memcheck_new_line = __LINE__ + 2;
void memcheck_program_new() {
  int* p = new int[100];
  weft::launch(2, 64, memcheck_write_past, p, 100);
  memcheck_finish("sync");
  delete[] p;
}

// The access is made in weft's atomicAdd: the report names the kernel's line.
void memcheck_atomic() {
  int* p = nullptr;
  cudaMalloc(&p, 100 * sizeof(int));
  weft::launch<memcheck_atomic_past>(1, 32, p, 100);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_managed_line = __LINE__ + 4;
void memcheck_cudaMallocManaged() {
  float* p = nullptr;
  float* out = nullptr;
  cudaMallocManaged(&p, 64 * sizeof(float));
  cudaMallocManaged(&out, sizeof(float));
  weft::launch<memcheck_read_at>(1, 32, p, 67, out);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_host_line = __LINE__ + 3;
void memcheck_cudaMallocHost() {
  int* p = nullptr;
  cudaMallocHost(&p, 100 * sizeof(int));
  weft::launch<memcheck_write_past>(2, 64, p, 100);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_host_alloc_line = __LINE__ + 3;
void memcheck_cudaHostAlloc() {
  int* p = nullptr;
  cudaHostAlloc(&p, 100 * sizeof(int), cudaHostAllocMapped);
  weft::launch<memcheck_write_past>(2, 64, p, 100);
  memcheck_finish("sync");
}

// A row's padding up to the pitch is addressable, as on a GPU; past the
// last row is not.
constexpr unsigned memcheck_pitch_line = __LINE__ + 4;
void memcheck_cudaMallocPitch() {
  char* p = nullptr;
  std::size_t pitch = 0;
  cudaMallocPitch(reinterpret_cast<void**>(&p), &pitch, 10, 4);
  weft::launch<memcheck_write_pitched>(1, dim3(2, 2), p, pitch + 11);  // in row 1's padding
  memcheck_finish("padding");
  weft::launch<memcheck_write_pitched>(1, dim3(2, 2), p, 4 * pitch);
  std::fprintf(stderr, "pitch %zu\n", pitch);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_3d_line = __LINE__ + 3;
void memcheck_cudaMalloc3D() {
  cudaPitchedPtr p{};
  cudaMalloc3D(&p, make_cudaExtent(10, 4, 2));
  std::fprintf(stderr, "pitch %zu\n", p.pitch);
  weft::launch<memcheck_write_pitched>(1, dim3(2, 2), static_cast<char*>(p.ptr), 8 * p.pitch);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_async_line = __LINE__ + 3;
void memcheck_cudaMallocAsync() {
  int* p = nullptr;
  cudaMallocAsync(&p, 100 * sizeof(int), 0);
  weft::launch<memcheck_write_past>(2, 64, p, 100);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_pool_line = __LINE__ + 8;
void memcheck_cudaMallocFromPoolAsync() {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, 0};
  cudaMemPool_t pool = nullptr;
  cudaMemPoolCreate(&pool, &props);
  int* p = nullptr;
  cudaMallocFromPoolAsync(&p, 100 * sizeof(int), pool, 0);
  weft::launch<memcheck_write_past>(2, 64, p, 100);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_freed_alloc_line = __LINE__ + 5;
constexpr unsigned memcheck_free_line = __LINE__ + 6;
void memcheck_use_after_free() {
  float* p = nullptr;
  float* out = nullptr;
  cudaMalloc(&p, 64 * sizeof(float));
  cudaMallocManaged(&out, sizeof(float));
  cudaFree(p);
  weft::launch<memcheck_read_at>(1, 32, p, 2, out);
  memcheck_finish("sync");
}

constexpr unsigned memcheck_twice_alloc_line = __LINE__ + 3;
void memcheck_double_free() {
  int* p = nullptr;
  cudaMalloc(&p, 100 * sizeof(int));
  cudaFree(p);
  cudaError_t again = cudaFree(p);
  std::fprintf(stderr, "second cudaFree: %s\n", cudaGetErrorName(again));
}

// A graph's memory node maps whole 32 MiB blocks; past the bytes asked for
// is poisoned.
void memcheck_graph_memory() {
  cudaStream_t s = nullptr;
  cudaStreamCreate(&s);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  int* p = nullptr;
  cudaMallocAsync(&p, 1000, s);
  weft::launch<memcheck_write_past>(weft::launch_config{2, 64, 0, s}, p, 250);
  cudaFreeAsync(p, s);
  cudaGraph_t graph = nullptr;
  cudaStreamEndCapture(s, &graph);
  cudaGraphExec_t exec = nullptr;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, s);
  memcheck_finish("sync");
}

void memcheck_dynamic_shared() {
  weft::launch<memcheck_write_dynamic_shared>(weft::launch_config{1, 32, 64}, 16);
  memcheck_finish("sync");
}

// The worker's buffer is larger than the second launch's 64 bytes: the rest
// is poisoned (the child runs with one worker).
void memcheck_dynamic_shared_after_larger() {
  weft::launch<memcheck_write_dynamic_shared>(weft::launch_config{1, 32, 1024}, 200);
  memcheck_finish("larger");
  weft::launch<memcheck_write_dynamic_shared>(weft::launch_config{1, 32, 64}, 18);
  memcheck_finish("sync");
}

void memcheck_device_array_write() {
  weft::launch<memcheck_write_device_array>(1, 32, 10);
  memcheck_finish("sync");
}

void memcheck_constant_array_read() {
  float* out = nullptr;
  cudaMallocManaged(&out, sizeof(float));
  weft::launch<memcheck_read_constant_array>(1, 32, 17, out);
  memcheck_finish("sync");
}

void memcheck_stack() {
  int* out = nullptr;
  cudaMallocManaged(&out, sizeof(int));
  weft::launch<memcheck_write_local>(1, 32, 8, out);
  memcheck_finish("sync");
}

void memcheck_shared_past() {
  float* out = nullptr;
  cudaMallocManaged(&out, 256 * sizeof(float));
  weft::launch<memcheck_write_shared_past>(2, 256, 256, out);
  memcheck_finish("sync");
}

void memcheck_shared_before() {
  float* out = nullptr;
  cudaMallocManaged(&out, 257 * sizeof(float));
  weft::launch<memcheck_read_shared_before>(1, 32, -1, out);
  memcheck_finish("sync");
}

void memcheck_stackless_shared() {
  float* out = nullptr;
  cudaMallocManaged(&out, 64 * sizeof(float));
  weft::launch<memcheck_stackless_shared_past>(1, 64, 64, out);
  memcheck_finish("sync");
}

void memcheck_shared_in_bounds() {
  float* out = nullptr;
  unsigned* misaligned = nullptr;
  cudaMallocManaged(&out, sizeof(float));
  cudaMallocManaged(&misaligned, sizeof(unsigned));
  weft::launch<memcheck_shared_arrays_in_bounds>(3, 64, out, misaligned);
  cudaError_t e = cudaDeviceSynchronize();
  std::fprintf(stderr, "in bounds: %s, sum %g, alignas(16) array %u bytes past a multiple of 16\n", cudaGetErrorName(e),
               static_cast<double>(*out), *misaligned);
}

void memcheck_last_shared(int index) {
  float* out = nullptr;
  cudaMallocManaged(&out, 33 * sizeof(float));
  weft::launch<memcheck_read_last_shared>(1, 32, index, out);
  memcheck_finish("sync");
}

template <class Kernel>
void memcheck_launch_reading_shared(Kernel kernel, int index) {
  float* out = nullptr;
  cudaMallocManaged(&out, 33 * sizeof(float));
  weft::launch(1, 32, kernel, index, out);
  memcheck_finish("sync");
}

void memcheck_template_shared_past() { memcheck_launch_reading_shared(memcheck_read_template_shared<float>, 32); }
void memcheck_template_shared_before() { memcheck_launch_reading_shared(memcheck_read_template_shared<float>, -1); }
void memcheck_inline_shared_past() { memcheck_launch_reading_shared(memcheck_read_inline_shared, 32); }
void memcheck_inline_shared_before() { memcheck_launch_reading_shared(memcheck_read_inline_shared, -1); }
void memcheck_lambda_shared_past() { memcheck_launch_reading_shared(memcheck_read_lambda_shared, 32); }
void memcheck_lambda_shared_before() { memcheck_launch_reading_shared(memcheck_read_lambda_shared, -1); }

void memcheck_pair_shared() {
  float* out = nullptr;
  cudaMallocManaged(&out, 32 * sizeof(float));
  weft::launch<memcheck_write_pair_shared>(1, 32, 4, out);
  memcheck_finish("sync");
}

void memcheck_last_shared_past() { memcheck_last_shared(32); }
void memcheck_last_shared_before() { memcheck_last_shared(-1); }

struct memcheck_scenario {
  const char* name;
  void (*run)();
};

constexpr memcheck_scenario memcheck_scenarios[] = {
    {"cudaMalloc", memcheck_cudaMalloc},
    {"atomicAdd", memcheck_atomic},
    {"operator new", memcheck_program_new},
    {"stackless kernel", memcheck_stackless},
    {"stackless body of a void kernel", memcheck_named},
    {"cudaMallocManaged", memcheck_cudaMallocManaged},
    {"cudaMallocHost", memcheck_cudaMallocHost},
    {"cudaHostAlloc", memcheck_cudaHostAlloc},
    {"cudaMallocPitch", memcheck_cudaMallocPitch},
    {"cudaMalloc3D", memcheck_cudaMalloc3D},
    {"cudaMallocAsync", memcheck_cudaMallocAsync},
    {"cudaMallocFromPoolAsync", memcheck_cudaMallocFromPoolAsync},
    {"use after free", memcheck_use_after_free},
    {"double free", memcheck_double_free},
    {"graph memory", memcheck_graph_memory},
    {"dynamic shared", memcheck_dynamic_shared},
    {"dynamic shared after larger", memcheck_dynamic_shared_after_larger},
    {"__device__ array", memcheck_device_array_write},
    {"__constant__ array", memcheck_constant_array_read},
    {"stack", memcheck_stack},
    {"__shared__ past", memcheck_shared_past},
    {"__shared__ before", memcheck_shared_before},
    {"__shared__ stackless", memcheck_stackless_shared},
    {"__shared__ in bounds", memcheck_shared_in_bounds},
    {"last __shared__ past", memcheck_last_shared_past},
    {"last __shared__ before", memcheck_last_shared_before},
    {"template __shared__ past", memcheck_template_shared_past},
    {"template __shared__ before", memcheck_template_shared_before},
    {"inline __shared__ past", memcheck_inline_shared_past},
    {"inline __shared__ before", memcheck_inline_shared_before},
    {"lambda __shared__ past", memcheck_lambda_shared_past},
    {"lambda __shared__ before", memcheck_lambda_shared_before},
    {"__shared__ pair", memcheck_pair_shared},
};

// The file of an llvm-symbolizer on PATH, named as Debian and LLVM name
// it, for the child's ASAN_SYMBOLIZER_PATH where none is set: without a
// symbolizer there are no lines to check.
std::string memcheck_symbolizer() {
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/bin";
  while (!rest.empty()) {
    std::string_view dir = rest.substr(0, rest.find(':'));
    rest = dir.size() < rest.size() ? rest.substr(dir.size() + 1) : std::string_view{};
    for (const char* name : {"llvm-symbolizer", "llvm-symbolizer-16", "llvm-symbolizer-14"}) {
      std::string candidate = std::string(dir) + "/" + name;
      if (::access(candidate.c_str(), X_OK) != 0) continue;
      // Debian's is a relative link, which ASan does not follow.
      char real[4096];
      return ::realpath(candidate.c_str(), real) ? std::string(real) : candidate;
    }
  }
  return {};
}

// Runs `scenario` in a child process and returns what it printed (stdout
// and stderr together) and how it ended.
struct memcheck_outcome {
  std::string output;
  int status = 0;
};

memcheck_outcome memcheck_run_child(const char* scenario) {
  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  std::string symbolizer = memcheck_symbolizer();
  std::string filter = std::string("--test-case=") + memcheck_child_case;
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::dup2(pipe_ends[1], STDOUT_FILENO);
    ::dup2(pipe_ends[1], STDERR_FILENO);
    ::close(pipe_ends[0]);
    ::setenv(memcheck_scenario_variable, scenario, 1);
    const char* options = std::getenv("ASAN_OPTIONS");
    std::string recovering = std::string(options ? options : "") + ":halt_on_error=0:detect_leaks=0";
    ::setenv("ASAN_OPTIONS", recovering.c_str(), 1);
    ::setenv("WEFT_WORKERS", "1", 1);
    if (!std::getenv("ASAN_SYMBOLIZER_PATH") && !symbolizer.empty())
      ::setenv("ASAN_SYMBOLIZER_PATH", symbolizer.c_str(), 1);
    ::alarm(120);  // a hung child fails the case instead of holding the run
    char* arguments[] = {const_cast<char*>("weft_tests"), filter.data(), nullptr};
    ::execv("/proc/self/exe", arguments);
    ::_exit(127);
  }
  ::close(pipe_ends[1]);
  memcheck_outcome outcome;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_ends[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) break;
    outcome.output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_ends[0]);
  ::waitpid(child, &outcome.status, 0);
  return outcome;
}

std::string memcheck_at(unsigned line) { return "memory_check_test.cpp:" + std::to_string(line); }

bool memcheck_skipped() {
  if constexpr (weft_test::under_address_sanitizer) {
    return false;
  } else {
    static bool said = false;
    if (!said) std::printf("memory check tests skipped: this build has no AddressSanitizer (WEFT_SANITIZE=address)\n");
    said = true;
    return true;
  }
}

// Whether `part` follows `first` on the same line of `text`.
bool memcheck_followed_by(const std::string& text, const std::string& first, const std::string& part) {
  auto at = text.find(first);
  return at != std::string::npos && text.find(part, at) < text.find('\n', at);
}

// The report of a bad access by thread `thread` of block `block` in
// `kernel`, which the child survived with a sticky cudaErrorIllegalAddress;
// `made_line`, where not 0, is the line of the allocation call `missed` names.
void memcheck_check_access(const memcheck_outcome& child, const std::string& access, const std::string& kernel,
                           const std::string& thread_and_block, unsigned line, const std::string& missed,
                           unsigned made_line = 0) {
  const std::string& out = child.output;
  INFO(out);
  if (made_line) CHECK(memcheck_followed_by(out, missed, memcheck_at(made_line)));
  CHECK(contains(out, "========= Invalid " + access));
  CHECK(contains(out, "=========     at "));
  CHECK(memcheck_followed_by(out, "=========     at ", memcheck_at(line)));
  CHECK(contains(out, "by " + thread_and_block + " of kernel '" + kernel));
  CHECK(contains(out, missed));
  // ASan's own report follows weft's.
  CHECK(contains(out, "AddressSanitizer"));
  CHECK(out.find("========= Invalid") < out.find("ERROR: AddressSanitizer"));
  // The launch failed as a GPU's does, and the process went on.
  CHECK(contains(out, "sync: cudaErrorIllegalAddress; still running"));
  CHECK(contains(out, "illegal address: invalid "));
  CHECK(WIFEXITED(child.status));
}

}  // namespace

TEST_CASE("memory check: a scenario in a child process") {
  const char* wanted = std::getenv(memcheck_scenario_variable);
  if (!wanted) return;  // run by the cases below only
  for (const memcheck_scenario& s : memcheck_scenarios)
    if (std::strcmp(s.name, wanted) == 0) s.run();
}

TEST_CASE("memory check: a write past a cudaMalloc allocation") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("cudaMalloc"), "__global__ write of size 4 bytes",
                        "memcheck_write_past(int*, int)", "thread (5,0,0) in block (1,0,0)", memcheck_write_line,
                        "is 0 bytes past a 400-byte allocation made by cudaMalloc at ", memcheck_malloc_line);
}

TEST_CASE("memory check: a write past an allocation by a stackless kernel's thread") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("stackless kernel"), "__global__ write of size 4 bytes",
                        "memcheck_stackless_write_past", "thread (5,0,0) in block (1,0,0)", memcheck_stackless_line,
                        "is 0 bytes past a 400-byte allocation made by cudaMalloc at ", memcheck_stackless_malloc_line);
}

TEST_CASE("memory check: a stackless body standing for a void kernel is named as the kernel") {
  if (memcheck_skipped()) return;
  memcheck_outcome child = memcheck_run_child("stackless body of a void kernel");
  memcheck_check_access(child, "__global__ write of size 4 bytes", "memcheck_named_write_past(int*, int)",
                        "thread (5,0,0) in block (1,0,0)", memcheck_named_line,
                        "is 0 bytes past a 400-byte allocation made by cudaMalloc at ", memcheck_named_malloc_line);
  INFO(child.output);
  CHECK(memcheck_followed_by(child.output, "=========     at ", " in memcheck_named_write_past"));
  CHECK_FALSE(memcheck_followed_by(child.output, "=========     at ", "weft_port_stackless_"));
}

TEST_CASE("memory check: memory the program allocated itself is named by the line that allocated it") {
  if (memcheck_skipped()) return;
  memcheck_outcome child = memcheck_run_child("operator new");
  memcheck_check_access(child, "__global__ write of size 4 bytes", "memcheck_write_past(int*, int)",
                        "thread (5,0,0) in block (1,0,0)", memcheck_write_line,
                        "is 0 bytes past a 400-byte allocation made at ", memcheck_new_line);
  CHECK_FALSE(contains(child.output, "made by at"));
}

TEST_CASE("memory check: an atomicAdd past an allocation is named by the kernel's line") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("atomicAdd"), "__global__", "memcheck_atomic_past(int*, int)",
                        "thread (9,0,0) in block (0,0,0)", memcheck_atomic_line,
                        "is 0 bytes past a 400-byte allocation made by cudaMalloc");
}

TEST_CASE("memory check: a read past a cudaMallocManaged allocation") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("cudaMallocManaged"), "__global__ read of size 4 bytes",
                        "memcheck_read_at(float const*, int, float*)", "thread (2,0,0) in block (0,0,0)",
                        memcheck_read_line, "is 12 bytes past a 256-byte allocation made by cudaMallocManaged at ",
                        memcheck_managed_line);
}

TEST_CASE("memory check: page-locked host memory, cudaMallocHost and cudaHostAlloc") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("cudaMallocHost"), "__global__ write of size 4 bytes",
                        "memcheck_write_past(int*, int)", "thread (5,0,0) in block (1,0,0)", memcheck_write_line,
                        "is 0 bytes past a 400-byte allocation made by cudaMallocHost at ", memcheck_host_line);
  memcheck_check_access(memcheck_run_child("cudaHostAlloc"), "__global__ write of size 4 bytes",
                        "memcheck_write_past(int*, int)", "thread (5,0,0) in block (1,0,0)", memcheck_write_line,
                        "is 0 bytes past a 400-byte allocation made by cudaHostAlloc at ", memcheck_host_alloc_line);
}

TEST_CASE("memory check: pitched memory, whose rows' padding is addressable") {
  if (memcheck_skipped()) return;
  memcheck_outcome pitched = memcheck_run_child("cudaMallocPitch");
  CHECK(contains(pitched.output, "padding: cudaSuccess; still running"));
  memcheck_check_access(pitched, "__global__ write of size 1 bytes", "memcheck_write_pitched(char*, unsigned long)",
                        "thread (0,1,0) in block (0,0,0)", memcheck_pitched_line,
                        "is 0 bytes past a 2048-byte allocation made by cudaMallocPitch at ", memcheck_pitch_line);
  memcheck_check_access(memcheck_run_child("cudaMalloc3D"), "__global__ write of size 1 bytes",
                        "memcheck_write_pitched(char*, unsigned long)", "thread (0,1,0) in block (0,0,0)",
                        memcheck_pitched_line, "is 0 bytes past a 4096-byte allocation made by cudaMalloc3D at ",
                        memcheck_3d_line);
}

TEST_CASE("memory check: a write past a cudaMallocAsync allocation") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("cudaMallocAsync"), "__global__ write of size 4 bytes",
                        "memcheck_write_past(int*, int)", "thread (5,0,0) in block (1,0,0)", memcheck_write_line,
                        "is 0 bytes past a 400-byte allocation made by cudaMallocAsync at ", memcheck_async_line);
}

TEST_CASE("memory check: a write past an allocation from a pool of the program's own") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("cudaMallocFromPoolAsync"), "__global__ write of size 4 bytes",
                        "memcheck_write_past(int*, int)", "thread (5,0,0) in block (1,0,0)", memcheck_write_line,
                        "is 0 bytes past a 400-byte allocation made by cudaMallocFromPoolAsync at ",
                        memcheck_pool_line);
}

TEST_CASE("memory check: a read of memory that cudaFree freed") {
  if (memcheck_skipped()) return;
  memcheck_outcome child = memcheck_run_child("use after free");
  memcheck_check_access(child, "__global__ read of size 4 bytes", "memcheck_read_at(float const*, int, float*)",
                        "thread (2,0,0) in block (0,0,0)", memcheck_read_line,
                        "is 8 bytes inside a 256-byte allocation made by cudaMalloc at ", memcheck_freed_alloc_line);
  CHECK(memcheck_followed_by(child.output, "; freed by cudaFree at ", memcheck_at(memcheck_free_line)));
}

TEST_CASE("memory check: cudaFree of memory freed already keeps CUDA's code and is reported") {
  if (memcheck_skipped()) return;
  memcheck_outcome child = memcheck_run_child("double free");
  const std::string& out = child.output;
  INFO(out);
  CHECK(contains(out, "second cudaFree: cudaErrorInvalidValue"));
  CHECK(contains(out,
                 "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on CUDA API call "
                 "to cudaFree."));
  CHECK(memcheck_followed_by(out, "was freed already, by cudaFree at ", memcheck_at(memcheck_twice_alloc_line + 1)));
  CHECK(memcheck_followed_by(out, "; made by cudaMalloc at ", memcheck_at(memcheck_twice_alloc_line)));
  CHECK(memcheck_followed_by(out, "=========     in cudaFree at ", memcheck_at(memcheck_twice_alloc_line + 2)));
  CHECK(WIFEXITED(child.status));
}

TEST_CASE("memory check: a write past a graph's memory node allocation") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("graph memory"), "__global__ write of size 4 bytes",
                        "memcheck_write_past(int*, int)", "thread (5,0,0) in block (1,0,0)", memcheck_write_line,
                        "is 0 bytes past the end of the 1000-byte allocation");
}

TEST_CASE("memory check: dynamic shared memory past the size the launch gave") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("dynamic shared"), "__shared__ write of size 4 bytes",
                        "memcheck_write_dynamic_shared(int)", "thread (3,0,0) in block (0,0,0)", memcheck_shared_line,
                        "is 0 bytes past the 64 bytes of dynamic shared memory the launch gave each block");
  memcheck_outcome after_larger = memcheck_run_child("dynamic shared after larger");
  CHECK(contains(after_larger.output, "larger: cudaSuccess; still running"));
  memcheck_check_access(after_larger, "__shared__ write of size 4 bytes", "memcheck_write_dynamic_shared(int)",
                        "thread (3,0,0) in block (0,0,0)", memcheck_shared_line,
                        "is 8 bytes past the 64 bytes of dynamic shared memory the launch gave each block");
}

TEST_CASE("memory check: __device__ and __constant__ arrays") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("__device__ array"), "__global__ write of size 4 bytes",
                        "memcheck_write_device_array(int)", "thread (4,0,0) in block (0,0,0)", memcheck_device_line,
                        "is 0 bytes past the 40-byte global 'memcheck_device_array'");
  memcheck_outcome constant = memcheck_run_child("__constant__ array");
  INFO(constant.output);
  CHECK(contains(constant.output, "========= Invalid __global__ read of size 4 bytes"));
  CHECK(contains(constant.output, "is 4 bytes past the 64-byte global 'memcheck_constant_array'"));
  CHECK(contains(constant.output, "sync: cudaErrorIllegalAddress; still running"));
}

TEST_CASE("memory check: a CUDA thread's own stack") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("stack"), "__local__ write of size 4 bytes",
                        "memcheck_write_local(int, int*)", "thread (6,0,0) in block (0,0,0)", memcheck_stack_line,
                        "on the CUDA thread's own stack");
}

TEST_CASE("memory check: an index one past a __shared__ array") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("__shared__ past"), "__shared__ write of size 4 bytes",
                        "memcheck_write_shared_past(int, float*)", "thread (7,0,0) in block (0,0,0)",
                        memcheck_shared_past_line,
                        "is 0 bytes past the 1024-byte __shared__ 'memcheck_shared_tile' of "
                        "memcheck_write_shared_past(int, float*)");
}

TEST_CASE("memory check: an index one before a __shared__ array") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("__shared__ before"), "__shared__ read of size 4 bytes",
                        "memcheck_read_shared_before(int, float*)", "thread (2,0,0) in block (0,0,0)",
                        memcheck_shared_before_line,
                        "is 4 bytes before the 1024-byte __shared__ 'memcheck_shared_front'");
}

TEST_CASE("memory check: an index past a __shared__ array of a stackless kernel") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("__shared__ stackless"), "__shared__ write of size 4 bytes",
                        "memcheck_stackless_shared_past", "thread (3,0,0) in block (0,0,0)",
                        memcheck_stackless_shared_line,
                        "is 0 bytes past the 256-byte __shared__ 'memcheck_coroutine_tile'");
}

TEST_CASE("memory check: an index one past and one before the last __shared__ array of a file") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("last __shared__ past"), "__shared__ read of size 4 bytes",
                        "memcheck_read_last_shared(int, float*)", "thread (5,0,0) in block (0,0,0)",
                        memcheck_last_shared_line,
                        "is 0 bytes past the 128-byte __shared__ 'memcheck_last_tile' of "
                        "memcheck_read_last_shared(int, float*)");
  memcheck_check_access(memcheck_run_child("last __shared__ before"), "__shared__ read of size 4 bytes",
                        "memcheck_read_last_shared(int, float*)", "thread (5,0,0) in block (0,0,0)",
                        memcheck_last_shared_line, "is 4 bytes before the 128-byte __shared__ 'memcheck_last_tile'");
}

namespace {

// `kernel` is the start of the kernel's name in the report; `missed_past`
// and `missed_before`, what the reads one past and one before missed.
void memcheck_check_shared_both_sides(const char* scenario_prefix, const std::string& kernel, unsigned line,
                                      const std::string& missed_past, const std::string& missed_before) {
  memcheck_check_access(memcheck_run_child((std::string(scenario_prefix) + " __shared__ past").c_str()),
                        "__shared__ read of size 4 bytes", kernel, "thread (5,0,0) in block (0,0,0)", line,
                        missed_past);
  memcheck_check_access(memcheck_run_child((std::string(scenario_prefix) + " __shared__ before").c_str()),
                        "__shared__ read of size 4 bytes", kernel, "thread (5,0,0) in block (0,0,0)", line,
                        missed_before);
}

}  // namespace

TEST_CASE("memory check: one past and one before the last __shared__ array of a function template") {
  if (memcheck_skipped()) return;
  memcheck_check_shared_both_sides("template", "void memcheck_read_template_shared<float>(int, float*)",
                                   memcheck_template_shared_line,
                                   "is 0 bytes past the 128-byte __shared__ 'memcheck_template_tile' of "
                                   "memcheck_read_template_shared<float>(int, float*)",
                                   "is 4 bytes before the 128-byte __shared__ 'memcheck_template_tile'");
}

TEST_CASE("memory check: one past and one before the __shared__ array of an inline function") {
  if (memcheck_skipped()) return;
  memcheck_check_shared_both_sides("inline", "memcheck_read_inline_shared(int, float*)", memcheck_inline_shared_line,
                                   "is 0 bytes past the 128-byte __shared__ 'memcheck_inline_tile' of "
                                   "memcheck_read_inline_shared(int, float*)",
                                   "is 4 bytes before the 128-byte __shared__ 'memcheck_inline_tile'");
}

TEST_CASE("memory check: one past and one before the __shared__ array of a lambda") {
  if (memcheck_skipped()) return;
  memcheck_check_shared_both_sides("lambda", "memcheck_read_lambda_shared::{lambda(int, float*)#1}",
                                   memcheck_lambda_shared_line,
                                   "is 0 bytes past the 128-byte __shared__ 'memcheck_lambda_tile'",
                                   "is 4 bytes before the 128-byte __shared__ 'memcheck_lambda_tile'");
}

TEST_CASE("memory check: one past the first of two __shared__ arrays declared together") {
  if (memcheck_skipped()) return;
  memcheck_check_access(memcheck_run_child("__shared__ pair"), "__shared__ write of size 4 bytes",
                        "memcheck_write_pair_shared(int, float*)", "thread (5,0,0) in block (0,0,0)",
                        memcheck_pair_shared_line,
                        "is 0 bytes past the 16-byte __shared__ 'memcheck_pair_first' of "
                        "memcheck_write_pair_shared(int, float*)");
}

TEST_CASE("memory check: a kernel that keeps to its __shared__ arrays is not reported") {
  if (memcheck_skipped()) return;
  memcheck_outcome child = memcheck_run_child("__shared__ in bounds");
  INFO(child.output);
  CHECK(contains(child.output, "in bounds: cudaSuccess, sum 2097, alignas(16) array 0 bytes past a multiple of 16"));
  CHECK_FALSE(contains(child.output, "Invalid"));
  CHECK_FALSE(contains(child.output, "AddressSanitizer"));
  CHECK(WIFEXITED(child.status));
}
