// Hostile input: a seeded random walk through the runtime API (issue 16,
// item 6). Thousands of calls (allocations of every kind, copies and sets,
// launches, streams, events, host functions, frees, resets), valid and
// invalid, each checked against the code a model of the device's state
// predicts from CUDA's rules (docs/semantics.md, docs/streams.md), with the
// last-error rules checked along the way and every byte a valid call wrote
// read back. No call may crash or hang; under ASan, LeakSanitizer checks
// that nothing leaks.
//
// The seed is printed; WEFT_FUZZ_SEED=n replays a run, WEFT_FUZZ_STEPS=n
// changes its length (docs/debugging.md, "Hostile input and load").
#include <doctest/doctest.h>
#include <weft.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

__global__ void fuzz_fill(int* out, int count, int salt) {
  int stride = static_cast<int>(gridDim.x * blockDim.x * blockDim.y);
  int first = static_cast<int>(blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x);
  for (int i = first; i < count; i += stride) out[i] = salt + i;
}

__global__ void fuzz_trap() {
  if (threadIdx.x == 1) __trap();
}

std::uint64_t fuzz_environment_number(const char* name, std::uint64_t otherwise) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtoull(text, nullptr, 0) : otherwise;
}

// Ends the process, naming the seed, if a run takes far longer than it
// should: a hang is a failure too, and the seed replays it.
class fuzz_watchdog {
 public:
  fuzz_watchdog(std::uint64_t seed, const std::atomic<long>& step) {
    thread_ = std::thread([this, seed, &step] {
      std::unique_lock lock(mutex_);
      if (!stopped_.wait_for(lock, std::chrono::seconds(120), [this] { return stop_; })) {
        std::fprintf(stderr, "runtime fuzz: no progress for 120 s at step %ld; replay with WEFT_FUZZ_SEED=%llu\n",
                     step.load(), static_cast<unsigned long long>(seed));
        std::_Exit(3);
      }
    });
  }
  fuzz_watchdog(const fuzz_watchdog&) = delete;
  fuzz_watchdog& operator=(const fuzz_watchdog&) = delete;
  ~fuzz_watchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    stopped_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  std::thread thread_;
};

// What host functions report; they run on weft's host-function thread.
struct fuzz_host_log {
  std::atomic<int> ran{0};
  std::atomic<int> refused{0};  // a blocking call made inside got cudaErrorNotPermitted
  std::atomic<int> allowed{0};  // ... and anything else
};

void fuzz_count_host_call(void* log) { static_cast<fuzz_host_log*>(log)->ran.fetch_add(1); }

void fuzz_block_in_host_call(void* log) {
  auto* l = static_cast<fuzz_host_log*>(log);
  cudaError_t e = cudaDeviceSynchronize();
  (e == cudaErrorNotPermitted ? l->refused : l->allowed).fetch_add(1);
  l->ran.fetch_add(1);
}

enum class fuzz_kind { device, managed, host, pitched, volume, stream_ordered, pool };

constexpr std::array<const char*, 7> fuzz_kind_names = {"cudaMalloc",
                                                        "cudaMallocManaged",
                                                        "cudaMallocHost",
                                                        "cudaMallocPitch",
                                                        "cudaMalloc3D",
                                                        "cudaMallocAsync",
                                                        "cudaMallocAsync from the default pool"};

constexpr short fuzz_unknown = -1;

struct fuzz_allocation {
  unsigned char* base;
  std::size_t bytes;
  fuzz_kind kind;
  std::vector<short> shadow;            // each byte's expected value, or fuzz_unknown
  std::optional<cudaStream_t> pending;  // the stream of work on it not yet waited for

  bool device_side() const { return kind != fuzz_kind::host; }
};

struct fuzz_array {
  cudaArray_t handle;
  std::size_t row_bytes, rows;
  std::vector<short> shadow;
};

struct fuzz_stream {
  cudaStream_t handle;
};

struct fuzz_event {
  cudaEvent_t handle;
  bool timed;
  bool recorded = false;
};

// The model: the state of device 0 as the calls so far should have left it.
class fuzz_model {
 public:
  explicit fuzz_model(std::uint64_t seed) : seed_(seed), random_(seed) {
    REQUIRE(cudaDeviceReset() == cudaSuccess);
    cudaGetLastError();
  }
  fuzz_model(const fuzz_model&) = delete;
  fuzz_model& operator=(const fuzz_model&) = delete;
  // After a failed check too: nothing may stay behind for later tests.
  ~fuzz_model() {
    cudaDeviceSynchronize();
    cudaDeviceReset();
    cudaGetLastError();
  }

  std::atomic<long> step{0};
  long checked_calls = 0;   // return codes compared with the model's
  long verified_bytes = 0;  // bytes read back and compared

  void run(long steps) {
    for (; step < steps; ++step) one_step();
    finish();
  }

 private:
  // --- checks --------------------------------------------------------------

  [[noreturn]] void diverged(const std::string& what) {
    FAIL("step " << step.load() << " (WEFT_FUZZ_SEED=" << seed_ << "): " << what);
    std::abort();  // FAIL throws; this only tells the compiler so
  }

  // The call returned `got`; the model says `want`. A failing call's code is
  // the thread's last error; cudaErrorNotReady is no error.
  void expect(cudaError_t got, cudaError_t want, const char* call) {
    if (got != want)
      diverged(std::string(call) + " returned " + cudaGetErrorName(got) + ", CUDA's rules say " +
               cudaGetErrorName(want));
    if (want != cudaSuccess && want != cudaErrorNotReady) last_error_ = want;
    ++checked_calls;
  }

  // Success, or the sticky fault once the device has one.
  cudaError_t ok() const { return sticky_; }

  void check_last_error() {
    expect(cudaPeekAtLastError(), last_error_, "cudaPeekAtLastError");
    expect(cudaPeekAtLastError(), last_error_, "cudaPeekAtLastError (again: peeking does not reset)");
    if (chance(50)) {
      expect(cudaGetLastError(), last_error_, "cudaGetLastError");
      last_error_ = cudaSuccess;
      expect(cudaGetLastError(), cudaSuccess, "cudaGetLastError (again: getting resets)");
    }
  }

  // --- random choices ------------------------------------------------------

  int below(int n) { return static_cast<int>(random_() % static_cast<std::uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }
  std::size_t some_bytes() { return chance(80) ? 1 + below(512) : 1 + below(8192); }

  template <class T>
  T& pick(std::vector<T>& from) {
    return from[static_cast<std::size_t>(below(static_cast<int>(from.size())))];
  }

  // A live stream, or one of the default streams.
  cudaStream_t some_stream() {
    int choice = below(static_cast<int>(streams_.size()) + 2);
    if (choice == 0) return nullptr;
    if (choice == 1) return cudaStreamPerThread;
    return streams_[static_cast<std::size_t>(choice - 2)].handle;
  }

  // A handle that names no live stream: destroyed, or made up.
  cudaStream_t dead_stream() {
    if (!dead_streams_.empty() && chance(80)) return pick(dead_streams_);
    return reinterpret_cast<cudaStream_t>(static_cast<std::uintptr_t>(0x1000 + 16 * below(64)));
  }

  // A freed allocation's address that is not inside live memory now
  // (the address may have been handed out again, to anything).
  std::optional<void*> dead_pointer() {
    while (!dead_pointers_.empty()) {
      std::size_t i = static_cast<std::size_t>(below(static_cast<int>(dead_pointers_.size())));
      cudaPointerAttributes attributes{};
      if (cudaPointerGetAttributes(&attributes, dead_pointers_[i]) == cudaSuccess &&
          attributes.type == cudaMemoryTypeUnregistered)
        return dead_pointers_[i];
      dead_pointers_.erase(dead_pointers_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return std::nullopt;
  }

  std::vector<fuzz_allocation*> device_side_allocations() {
    std::vector<fuzz_allocation*> found;
    for (auto& a : allocations_)
      if (a.device_side()) found.push_back(&a);
    return found;
  }

  std::vector<fuzz_allocation*> host_allocations() {
    std::vector<fuzz_allocation*> found;
    for (auto& a : allocations_)
      if (!a.device_side()) found.push_back(&a);
    return found;
  }

  // --- stream order --------------------------------------------------------

  bool live(cudaStream_t s) const {
    if (s == nullptr || s == cudaStreamPerThread) return true;
    return std::any_of(streams_.begin(), streams_.end(), [s](const fuzz_stream& f) { return f.handle == s; });
  }

  void synchronize_device() {
    expect(cudaDeviceSynchronize(), ok(), "cudaDeviceSynchronize");
    for (auto& a : allocations_) a.pending.reset();
    check_host_functions();
  }

  void synchronize_stream(cudaStream_t s) {
    if (!live(s)) return synchronize_device();
    expect(cudaStreamSynchronize(s), ok(), "cudaStreamSynchronize");
    for (auto& a : allocations_)
      if (a.pending == s) a.pending.reset();
  }

  // Work on `a` in `next` must not race with work on it still pending in
  // another stream: wait for that first. (Two streams that touch the same
  // bytes unordered would be the program's race, not weft's.)
  void settle(fuzz_allocation& a, std::optional<cudaStream_t> next) {
    if (a.pending && a.pending != next) synchronize_stream(*a.pending);
  }

  void after_work(fuzz_allocation& a, cudaStream_t s, bool synchronous) {
    if (synchronous)
      a.pending.reset();
    else
      a.pending = s;
  }

  // --- the steps -----------------------------------------------------------

  void one_step() {
    if (sticky_ != cudaSuccess) return sticky_step();
    int roll = below(1000);
    if (roll < 130) return allocate();
    if (roll < 220) return free_one();
    if (roll < 250) return bad_free();
    if (roll < 370) return memset_one();
    if (roll < 500) return memcpy_one();
    if (roll < 620) return launch_one();
    if (roll < 660) return bad_launch();
    if (roll < 720) return stream_step();
    if (roll < 800) return event_step();
    if (roll < 840) return host_function_step();
    if (roll < 870) return array_step();
    if (roll < 890) return pitched_step();
    if (roll < 920) return verify_one();
    if (roll < 950) return synchronize_device();
    if (roll < 990) return check_last_error();
    if (roll < 995 && traps_ < 3) return trap();
    return reset();
  }

  // After a kernel fault, the device refuses work until cudaDeviceReset:
  // only the calls whose sticky answer CUDA documents are made
  // (docs/semantics.md, "Kernels that fail").
  void sticky_step() {
    int roll = below(100);
    if (roll < 10) {
      void* p = nullptr;
      expect(cudaMalloc(&p, 64), sticky_, "cudaMalloc after a fault");
      CHECK(p == nullptr);
    } else if (roll < 20 && !allocations_.empty()) {
      fuzz_allocation& a = pick(allocations_);
      std::vector<unsigned char> out(a.bytes);
      expect(a.device_side() ? cudaMemcpy(out.data(), a.base, a.bytes, cudaMemcpyDeviceToHost)
                             : cudaMemcpy(out.data(), a.base, a.bytes, cudaMemcpyHostToHost),
             sticky_, "cudaMemcpy after a fault");
    } else if (roll < 30 && !device_side_allocations().empty()) {
      fuzz_allocation& a = *device_side_allocations().front();
      expect(cudaMemset(a.base, 0, a.bytes), sticky_, "cudaMemset after a fault");
      expect(cudaMemsetAsync(a.base, 0, a.bytes, some_stream()), sticky_, "cudaMemsetAsync after a fault");
    } else if (roll < 40 && !device_side_allocations().empty()) {
      fuzz_allocation& a = *device_side_allocations().front();
      // A fault freed nothing: cudaFree waits for the device, finds the fault.
      expect(cudaFree(a.base), sticky_, "cudaFree after a fault");
    } else if (roll < 45) {
      // Every allocation, stream and event creation: CUDA's documentation
      // of each says it may return the error of an earlier launch.
      void* p = nullptr;
      std::size_t pitch = 0;
      cudaPitchedPtr pitched{};
      cudaArray_t array = nullptr;
      cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
      cudaStream_t s = nullptr;
      cudaEvent_t e = nullptr;
      switch (below(7)) {
        case 0:
          expect(cudaMallocManaged(&p, 64), sticky_, "cudaMallocManaged after a fault");
          break;
        case 1:
          expect(cudaMallocHost(&p, 64), sticky_, "cudaMallocHost after a fault");
          break;
        case 2:
          expect(cudaMallocPitch(&p, &pitch, 64, 2), sticky_, "cudaMallocPitch after a fault");
          break;
        case 3:
          expect(cudaMalloc3D(&pitched, make_cudaExtent(64, 2, 2)), sticky_, "cudaMalloc3D after a fault");
          break;
        case 4:
          expect(cudaMallocArray(&array, &desc, 8, 8), sticky_, "cudaMallocArray after a fault");
          break;
        case 5:
          expect(cudaStreamCreate(&s), sticky_, "cudaStreamCreate after a fault");
          break;
        default:
          expect(cudaEventCreate(&e), sticky_, "cudaEventCreate after a fault");
          break;
      }
      if (p || pitched.ptr || array || s || e) diverged("a creation refused after a fault gave a handle");
    } else if (roll < 50) {
      int dummy = 0;
      expect(weft::launch({1, 32, 0, some_stream()}, fuzz_fill, &dummy, 1, 0), sticky_, "a launch after a fault");
    } else if (roll < 60) {
      expect(cudaDeviceSynchronize(), sticky_, "cudaDeviceSynchronize after a fault");
    } else if (roll < 70) {
      expect(cudaStreamSynchronize(some_stream()), sticky_, "cudaStreamSynchronize after a fault");
    } else if (roll < 80) {
      expect(cudaStreamQuery(some_stream()), sticky_, "cudaStreamQuery after a fault");
    } else if (roll < 90) {
      check_last_error();
    } else {
      reset();
    }
  }

  void forget_dead_pointers_in(const unsigned char* base, std::size_t bytes) {
    std::erase_if(dead_pointers_, [&](void* p) {
      auto* c = static_cast<unsigned char*>(p);
      return c >= base && c < base + bytes;
    });
  }

  void add_allocation(void* p, std::size_t bytes, fuzz_kind kind, std::optional<cudaStream_t> pending = {}) {
    auto* base = static_cast<unsigned char*>(p);
    forget_dead_pointers_in(base, bytes);
    fuzz_allocation a{base, bytes, kind, std::vector<short>(bytes, fuzz_unknown), pending};
    // Host-visible memory starts with a pattern the host writes itself.
    if (kind == fuzz_kind::host || kind == fuzz_kind::managed) {
      if (pending) synchronize_stream(*pending);
      a.pending.reset();
      for (std::size_t i = 0; i < bytes; ++i) {
        base[i] = static_cast<unsigned char>(below(256));
        a.shadow[i] = base[i];
      }
    }
    allocations_.push_back(std::move(a));
  }

  void allocate() {
    if (allocations_.size() >= 24) return free_one();
    auto kind = static_cast<fuzz_kind>(below(7));
    std::size_t bytes = some_bytes();
    void* p = nullptr;
    int variant = below(100);
    const char* name = fuzz_kind_names[static_cast<std::size_t>(kind)];
    switch (kind) {
      case fuzz_kind::device:
        if (variant < 5) return expect(cudaMalloc(nullptr, bytes), cudaErrorInvalidValue, "cudaMalloc(nullptr, n)");
        if (variant < 8) {
          expect(cudaMalloc(&p, std::size_t{1} << 60), cudaErrorMemoryAllocation, "cudaMalloc(2^60 bytes)");
          if (p) diverged("a failed cudaMalloc left a pointer");
          return;
        }
        if (variant < 12) {
          expect(cudaMalloc(&p, 0), cudaSuccess, "cudaMalloc(0 bytes)");
          if (p) diverged("cudaMalloc(0 bytes) gave a pointer");
          return;
        }
        expect(cudaMalloc(&p, bytes), cudaSuccess, name);
        break;
      case fuzz_kind::managed:
        if (variant < 5)
          return expect(cudaMallocManaged(&p, bytes, 0x7), cudaErrorInvalidValue, "cudaMallocManaged, unknown flags");
        expect(cudaMallocManaged(&p, bytes, chance(50) ? cudaMemAttachGlobal : cudaMemAttachHost), cudaSuccess, name);
        break;
      case fuzz_kind::host:
        if (variant < 5)
          return expect(cudaHostAlloc(&p, bytes, 0x8), cudaErrorInvalidValue, "cudaHostAlloc, unknown flags");
        if (variant < 50)
          expect(cudaMallocHost(&p, bytes), cudaSuccess, name);
        else
          expect(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable), cudaSuccess, "cudaHostAlloc");
        break;
      case fuzz_kind::pitched: {
        std::size_t width = 1 + below(700), height = 1 + below(4), pitch = 0;
        expect(cudaMallocPitch(&p, &pitch, width, height), cudaSuccess, name);
        if (pitch != (width + 511) / 512 * 512) diverged("cudaMallocPitch's pitch is not the width rounded up to 512");
        bytes = pitch * height;
        break;
      }
      case fuzz_kind::volume: {
        cudaExtent extent = make_cudaExtent(1 + below(600), 1 + below(3), 1 + below(3));
        cudaPitchedPtr pitched{};
        expect(cudaMalloc3D(&pitched, extent), cudaSuccess, name);
        if (pitched.pitch != (extent.width + 511) / 512 * 512 || pitched.xsize != extent.width ||
            pitched.ysize != extent.height)
          diverged("cudaMalloc3D's pitched pointer does not describe the extent");
        p = pitched.ptr;
        bytes = pitched.pitch * extent.height * extent.depth;
        break;
      }
      case fuzz_kind::stream_ordered: {
        if (variant < 5) {
          cudaStream_t gone = dead_stream();
          expect(cudaMallocAsync(&p, bytes, gone), cudaErrorInvalidResourceHandle, "cudaMallocAsync, dead stream");
          return;
        }
        cudaStream_t s = some_stream();
        expect(cudaMallocAsync(&p, bytes, s), cudaSuccess, name);
        return add_allocation(p, bytes, kind, s);
      }
      case fuzz_kind::pool: {
        cudaMemPool_t pool = nullptr;
        expect(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess, "cudaDeviceGetDefaultMemPool");
        std::uint64_t keep = static_cast<std::uint64_t>(below(4)) << 20;
        expect(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), cudaSuccess,
               "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
        cudaMemPool_t current = nullptr;
        expect(cudaDeviceGetMemPool(&current, 0), cudaSuccess, "cudaDeviceGetMemPool");
        if (current != pool) diverged("cudaDeviceGetMemPool is not the default pool");
        cudaStream_t s = some_stream();
        expect(cudaMallocAsync(&p, bytes, s), cudaSuccess, name);
        return add_allocation(p, bytes, kind, s);
      }
    }
    if (!p) diverged(std::string(name) + " succeeded with a null pointer");
    add_allocation(p, bytes, kind);
  }

  void release(std::size_t index) {
    fuzz_allocation& a = allocations_[index];
    bool freed_in_stream_order = (a.kind == fuzz_kind::stream_ordered || a.kind == fuzz_kind::pool) && chance(60);
    if (freed_in_stream_order) {
      cudaStream_t s = some_stream();
      settle(a, s);
      expect(cudaFreeAsync(a.base, s), cudaSuccess, "cudaFreeAsync");
    } else if (a.kind == fuzz_kind::host) {
      expect(cudaFreeHost(a.base), cudaSuccess, "cudaFreeHost");
      for (auto& other : allocations_) other.pending.reset();  // it waited for the device
    } else {
      expect(cudaFree(a.base), cudaSuccess, "cudaFree");
      for (auto& other : allocations_) other.pending.reset();
    }
    dead_pointers_.push_back(a.base);
    allocations_.erase(allocations_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  void free_one() {
    if (allocations_.empty()) return allocate();
    release(static_cast<std::size_t>(below(static_cast<int>(allocations_.size()))));
  }

  // Frees CUDA refuses with cudaErrorInvalidValue; cudaFree(nullptr) succeeds.
  void bad_free() {
    int local = 0;
    std::vector<char> pageable(16);
    switch (below(7)) {
      case 0:
        if (auto p = dead_pointer()) return expect(cudaFree(*p), cudaErrorInvalidValue, "cudaFree of freed memory");
        break;
      case 1:
        return expect(cudaFree(&local), cudaErrorInvalidValue, "cudaFree of a stack address");
      case 2:
        return expect(cudaFree(pageable.data()), cudaErrorInvalidValue, "cudaFree of pageable host memory");
      case 3:
        if (auto hosts = host_allocations(); !hosts.empty())
          return expect(cudaFree(hosts.front()->base), cudaErrorInvalidValue, "cudaFree of cudaMallocHost memory");
        break;
      case 4:
        if (auto devices = device_side_allocations(); !devices.empty())
          return expect(cudaFreeHost(devices.front()->base), cudaErrorInvalidValue, "cudaFreeHost of device memory");
        break;
      case 5:
        for (auto& a : allocations_)
          if (a.bytes > 1 && a.kind != fuzz_kind::host)
            return expect(cudaFree(a.base + 1), cudaErrorInvalidValue, "cudaFree of an interior pointer");
        break;
      default:
        break;
    }
    expect(cudaFree(nullptr), cudaSuccess, "cudaFree(nullptr)");
    for (auto& a : allocations_) a.pending.reset();  // it waited for the device
  }

  // A range of `a`: whole, or a random part.
  std::pair<std::size_t, std::size_t> some_range(const fuzz_allocation& a) {
    if (chance(30)) return {0, a.bytes};
    std::size_t offset = static_cast<std::size_t>(below(static_cast<int>(a.bytes)));
    std::size_t length = 1 + static_cast<std::size_t>(below(static_cast<int>(a.bytes - offset)));
    return {offset, length};
  }

  void memset_one() {
    auto devices = device_side_allocations();
    bool asynchronous = chance(50);
    cudaStream_t s = asynchronous ? some_stream() : nullptr;
    auto set = [&](void* p, int value, std::size_t n) {
      return asynchronous ? cudaMemsetAsync(p, value, n, s) : cudaMemset(p, value, n);
    };
    const char* name = asynchronous ? "cudaMemsetAsync" : "cudaMemset";
    int defect = below(100);
    if (devices.empty() || defect < 20) {
      // What CUDA refuses: a range past the end, freed memory, host memory,
      // null; and a dead stream. Zero bytes are always fine.
      int local = 0;
      switch (below(6)) {
        case 0:
          if (!devices.empty()) {
            fuzz_allocation& a = *pick(devices);
            settle(a, std::nullopt);
            return expect(set(a.base + a.bytes / 2, 1, a.bytes - a.bytes / 2 + 1), cudaErrorInvalidValue, name);
          }
          break;
        case 1:
          if (auto p = dead_pointer()) return expect(set(*p, 1, 4), cudaErrorInvalidValue, name);
          break;
        case 2:
          return expect(set(&local, 1, sizeof local), cudaErrorInvalidValue, name);
        case 3:
          if (auto hosts = host_allocations(); !hosts.empty())
            return expect(set(hosts.front()->base, 1, 1), cudaErrorInvalidValue, name);
          break;
        case 4:
          if (!devices.empty() && asynchronous) {
            cudaStream_t gone = dead_stream();
            return expect(cudaMemsetAsync(devices.front()->base, 0, 1, gone), cudaErrorInvalidResourceHandle,
                          "cudaMemsetAsync on a dead stream");
          }
          break;
        default:
          break;
      }
      return expect(set(nullptr, 1, 0), cudaSuccess, "a set of 0 bytes");
    }
    fuzz_allocation& a = *pick(devices);
    auto [offset, length] = some_range(a);
    int value = below(256) + (chance(10) ? 0x1200 : 0);  // only the low byte counts
    settle(a, asynchronous ? std::optional(s) : std::nullopt);
    expect(set(a.base + offset, value, length), cudaSuccess, name);
    std::fill_n(a.shadow.begin() + static_cast<std::ptrdiff_t>(offset), length, static_cast<short>(value & 0xff));
    after_work(a, s, !asynchronous);
  }

  void copy_shadow(const std::vector<short>& from, std::size_t from_offset, fuzz_allocation& to, std::size_t to_offset,
                   std::size_t n) {
    std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(from_offset), n,
                to.shadow.begin() + static_cast<std::ptrdiff_t>(to_offset));
  }

  void memcpy_one() {
    auto devices = device_side_allocations();
    auto hosts = host_allocations();
    bool asynchronous = chance(50);
    cudaStream_t s = asynchronous ? some_stream() : nullptr;
    auto copy = [&](void* dst, const void* src, std::size_t n, cudaMemcpyKind kind) {
      return asynchronous ? cudaMemcpyAsync(dst, src, n, kind, s) : cudaMemcpy(dst, src, n, kind);
    };
    const char* name = asynchronous ? "cudaMemcpyAsync" : "cudaMemcpy";
    std::vector<unsigned char> pageable(64, 7);
    if (devices.empty() || chance(20)) {
      // What CUDA refuses: a kind outside 0..4, a device side (by kind) past
      // its allocation's end, freed, null or on the host.
      int local = 0;
      switch (below(7)) {
        case 0:
          return expect(copy(pageable.data(), pageable.data() + 32, 8, static_cast<cudaMemcpyKind>(7)),
                        cudaErrorInvalidMemcpyDirection, name);
        case 1:
          if (!devices.empty() && !asynchronous) {
            fuzz_allocation& a = *pick(devices);
            std::vector<unsigned char> big(a.bytes + 1);
            return expect(copy(a.base, big.data(), big.size(), cudaMemcpyHostToDevice), cudaErrorInvalidValue, name);
          }
          break;
        case 2:
          if (auto p = dead_pointer(); p && !asynchronous)
            return expect(copy(pageable.data(), *p, 8, cudaMemcpyDeviceToHost), cudaErrorInvalidValue, name);
          break;
        case 3:
          if (!devices.empty())
            return expect(copy(nullptr, devices.front()->base, 1, cudaMemcpyDeviceToHost), cudaErrorInvalidValue, name);
          break;
        case 4:  // the wrong kind: a host address as the device side
          if (!asynchronous)
            return expect(copy(&local, pageable.data(), 4, cudaMemcpyHostToDevice), cudaErrorInvalidValue, name);
          break;
        case 5:
          if (!devices.empty() && asynchronous) {
            cudaStream_t gone = dead_stream();
            // (Of a valid range: CUDA's order of checks between a bad range
            // and a bad stream, and for 0 bytes, is not documented.)
            return expect(cudaMemcpyAsync(devices.front()->base, pageable.data(), 1, cudaMemcpyHostToDevice, gone),
                          cudaErrorInvalidResourceHandle, "cudaMemcpyAsync on a dead stream");
          }
          break;
        default:
          break;
      }
      return expect(copy(nullptr, nullptr, 0, cudaMemcpyDeviceToDevice), cudaSuccess, "a copy of 0 bytes");
    }
    std::optional<cudaStream_t> order = asynchronous ? std::optional(s) : std::nullopt;
    fuzz_allocation& dst = *pick(devices);
    int direction = below(4);
    if (direction == 0 && !asynchronous) {
      // From pageable memory the host fills now.
      auto [offset, length] = some_range(dst);
      std::vector<unsigned char> from(length);
      std::vector<short> shadow(length);
      for (std::size_t i = 0; i < length; ++i) shadow[i] = from[i] = static_cast<unsigned char>(below(256));
      settle(dst, order);
      expect(copy(dst.base + offset, from.data(), length, chance(50) ? cudaMemcpyHostToDevice : cudaMemcpyDefault),
             cudaSuccess, name);
      copy_shadow(shadow, 0, dst, offset, length);
      return after_work(dst, s, true);
    }
    // From or to another allocation: device to device, pinned host to
    // device, device to pinned host (CUDA leaves overlapping copies
    // undefined: the two are distinct).
    std::vector<fuzz_allocation*> others;
    for (auto& a : allocations_)
      if (&a != &dst) others.push_back(&a);
    if (others.empty()) return;
    fuzz_allocation& other = *pick(others);
    bool into_dst = chance(50);
    fuzz_allocation& to = into_dst ? dst : other;
    fuzz_allocation& from = into_dst ? other : dst;
    std::size_t length = 1 + static_cast<std::size_t>(below(static_cast<int>(std::min(to.bytes, from.bytes))));
    std::size_t to_offset = static_cast<std::size_t>(below(static_cast<int>(to.bytes - length + 1)));
    std::size_t from_offset = static_cast<std::size_t>(below(static_cast<int>(from.bytes - length + 1)));
    cudaMemcpyKind kind = !from.device_side() ? cudaMemcpyHostToDevice
                          : !to.device_side() ? cudaMemcpyDeviceToHost
                                              : cudaMemcpyDeviceToDevice;
    if (chance(25)) kind = cudaMemcpyDefault;
    settle(to, order);
    settle(from, order);
    expect(copy(to.base + to_offset, from.base + from_offset, length, kind), cudaSuccess, name);
    copy_shadow(from.shadow, from_offset, to, to_offset, length);
    after_work(to, s, !asynchronous);
    after_work(from, s, !asynchronous);
  }

  void launch_one() {
    std::vector<fuzz_allocation*> targets;
    for (auto& a : allocations_)
      if ((a.kind == fuzz_kind::device || a.kind == fuzz_kind::managed || a.kind == fuzz_kind::stream_ordered) &&
          a.bytes >= sizeof(int))
        targets.push_back(&a);
    if (targets.empty()) return allocate();
    fuzz_allocation& a = *pick(targets);
    int count = static_cast<int>(a.bytes / sizeof(int));
    dim3 block = chance(70) ? dim3(1 + below(256)) : dim3(1 + below(32), 1 + below(8));
    if (chance(3)) block = dim3(1024);
    dim3 grid(1 + below(4));
    std::size_t shared = chance(20) ? static_cast<std::size_t>(below(48 * 1024 + 1)) : 0;
    cudaStream_t s = some_stream();
    int salt = below(1 << 20);
    settle(a, s);
    expect(weft::launch({grid, block, shared, s}, fuzz_fill, reinterpret_cast<int*>(a.base), count, salt), cudaSuccess,
           "a valid launch");
    for (int i = 0; i < count; ++i) {
      int value = salt + i;
      unsigned char bytes[sizeof value];
      std::memcpy(bytes, &value, sizeof value);
      for (std::size_t b = 0; b < sizeof value; ++b)
        a.shadow[static_cast<std::size_t>(i) * sizeof value + b] = bytes[b];
    }
    after_work(a, s, false);
  }

  // Configurations CUDA refuses (each with one defect): they run nothing.
  void bad_launch() {
    int never_written = 12345;
    dim3 grid(1), block(32);
    std::size_t shared = 0;
    cudaStream_t s = some_stream();
    cudaError_t want = cudaErrorInvalidValue;
    const char* name = "";
    switch (below(11)) {
      case 0:
        block = dim3(0), name = "a launch of 0 threads";
        break;
      case 1:
        block = dim3(1025), name = "a launch of 1025 threads";
        break;
      case 2:
        block = dim3(32, 32, 2), name = "a launch of 2048 threads";
        break;
      case 3:
        block = dim3(1, 1, 65), name = "a launch with block.z 65";
        break;
      case 4:
        grid = dim3(0), name = "a launch of 0 blocks";
        break;
      case 5:
        grid = dim3(1, 70000), name = "a launch with grid.y 70000";
        break;
      case 6:
        grid = dim3(1, 1, 65536), name = "a launch with grid.z 65536";
        break;
      case 7:
        grid = dim3(1u << 31), name = "a launch with grid.x 2^31";
        break;
      case 8:
        shared = 48 * 1024 + 4, name = "a launch with 48 KiB + 4 of dynamic shared memory";
        break;
      case 9:
        shared = 1 << 20, name = "a launch with 1 MiB of dynamic shared memory";
        break;
      default:
        s = dead_stream();
        want = cudaErrorInvalidResourceHandle;
        name = "a launch on a dead stream";
        break;
    }
    expect(weft::launch({grid, block, shared, s}, fuzz_fill, &never_written, 1, 7), want, name);
    if (chance(30)) check_last_error();
    expect(cudaDeviceSynchronize(), cudaSuccess, "cudaDeviceSynchronize after a refused launch");
    for (auto& a : allocations_) a.pending.reset();
    if (never_written != 12345) diverged(std::string(name) + " ran");
  }

  void stream_step() {
    switch (below(8)) {
      case 0:
      case 1: {
        if (streams_.size() >= 8) break;
        cudaStream_t s = nullptr;
        int variant = below(4);
        if (variant == 0)
          expect(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
        else if (variant == 1)
          expect(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess, "cudaStreamCreateWithFlags");
        else if (variant == 2)
          expect(cudaStreamCreateWithPriority(&s, cudaStreamDefault, -below(8)), cudaSuccess,
                 "cudaStreamCreateWithPriority");
        else
          return expect(cudaStreamCreateWithFlags(&s, 0x4), cudaErrorInvalidValue,
                        "cudaStreamCreateWithFlags, unknown flags");
        std::erase(dead_streams_, s);
        streams_.push_back({s});
        return;
      }
      case 2:
        if (streams_.empty()) break;
        {
          // Busy or not, it returns at once; its work still runs.
          std::size_t i = static_cast<std::size_t>(below(static_cast<int>(streams_.size())));
          cudaStream_t s = streams_[i].handle;
          expect(cudaStreamDestroy(s), cudaSuccess, "cudaStreamDestroy");
          streams_.erase(streams_.begin() + static_cast<std::ptrdiff_t>(i));
          dead_streams_.push_back(s);
          return;
        }
      case 3: {
        cudaStream_t s = some_stream();
        return synchronize_stream(s);
      }
      case 4: {
        cudaError_t e = cudaStreamQuery(some_stream());
        if (e != cudaErrorNotReady) expect(e, cudaSuccess, "cudaStreamQuery");
        return;
      }
      case 5: {
        cudaStream_t gone = dead_stream();
        int variant = below(4);
        if (variant == 0)
          return expect(cudaStreamDestroy(gone), cudaErrorInvalidResourceHandle, "cudaStreamDestroy of a dead stream");
        if (variant == 1)
          return expect(cudaStreamSynchronize(gone), cudaErrorInvalidResourceHandle,
                        "cudaStreamSynchronize of a dead stream");
        if (variant == 2)
          return expect(cudaStreamQuery(gone), cudaErrorInvalidResourceHandle, "cudaStreamQuery of a dead stream");
        unsigned flags = 0;
        return expect(cudaStreamGetFlags(gone, &flags), cudaErrorInvalidResourceHandle,
                      "cudaStreamGetFlags of a dead stream");
      }
      case 6:
        return expect(cudaStreamDestroy(chance(50) ? nullptr : cudaStreamPerThread), cudaErrorInvalidResourceHandle,
                      "cudaStreamDestroy of a default stream");
      default:
        break;
    }
    cudaError_t e = cudaStreamQuery(nullptr);
    if (e != cudaErrorNotReady) expect(e, cudaSuccess, "cudaStreamQuery(0)");
  }

  cudaEvent_t dead_event() {
    if (!dead_events_.empty() && chance(80)) return pick(dead_events_);
    return reinterpret_cast<cudaEvent_t>(static_cast<std::uintptr_t>(0x2000 + 16 * below(64)));
  }

  void event_step() {
    switch (below(9)) {
      case 0:
      case 1: {
        if (events_.size() >= 8) break;
        cudaEvent_t e = nullptr;
        int variant = below(4);
        unsigned flags = variant == 0   ? cudaEventDefault
                         : variant == 1 ? cudaEventDisableTiming
                                        : cudaEventBlockingSync;
        if (variant == 3)
          return expect(cudaEventCreateWithFlags(&e, 0x100), cudaErrorInvalidValue,
                        "cudaEventCreateWithFlags, unknown flags");
        expect(cudaEventCreateWithFlags(&e, flags), cudaSuccess, "cudaEventCreateWithFlags");
        std::erase(dead_events_, e);
        events_.push_back({e, (flags & cudaEventDisableTiming) == 0});
        return;
      }
      case 2:
        if (events_.empty()) break;
        {
          fuzz_event& e = pick(events_);
          expect(cudaEventRecord(e.handle, some_stream()), cudaSuccess, "cudaEventRecord");
          e.recorded = true;
          return;
        }
      case 3:
        if (events_.empty()) break;
        {
          cudaError_t got = cudaEventQuery(pick(events_).handle);
          if (got != cudaErrorNotReady) expect(got, cudaSuccess, "cudaEventQuery");
          return;
        }
      case 4:
        if (events_.empty()) break;
        return expect(cudaEventSynchronize(pick(events_).handle), cudaSuccess, "cudaEventSynchronize");
      case 5:
        if (events_.empty()) break;
        {
          cudaStream_t s = some_stream();
          fuzz_event& e = pick(events_);
          if (chance(10))
            return expect(cudaStreamWaitEvent(s, e.handle, 0x4), cudaErrorInvalidValue,
                          "cudaStreamWaitEvent, unknown flags");
          return expect(cudaStreamWaitEvent(s, e.handle, 0), cudaSuccess, "cudaStreamWaitEvent");
        }
      case 6:
        if (events_.empty()) break;
        {
          std::size_t i = static_cast<std::size_t>(below(static_cast<int>(events_.size())));
          expect(cudaEventDestroy(events_[i].handle), cudaSuccess, "cudaEventDestroy");
          dead_events_.push_back(events_[i].handle);
          events_.erase(events_.begin() + static_cast<std::ptrdiff_t>(i));
          return;
        }
      case 7:
        if (events_.size() < 2) break;
        {
          fuzz_event& a = pick(events_);
          fuzz_event& b = pick(events_);
          float ms = 0;
          if (!a.timed || !b.timed || !a.recorded || !b.recorded)
            return expect(cudaEventElapsedTime(&ms, a.handle, b.handle), cudaErrorInvalidResourceHandle,
                          "cudaEventElapsedTime of an untimed or unrecorded event");
          expect(cudaEventSynchronize(a.handle), cudaSuccess, "cudaEventSynchronize");
          expect(cudaEventSynchronize(b.handle), cudaSuccess, "cudaEventSynchronize");
          return expect(cudaEventElapsedTime(&ms, a.handle, b.handle), cudaSuccess, "cudaEventElapsedTime");
        }
      default: {
        cudaEvent_t gone = dead_event();
        switch (below(5)) {
          case 0:
            return expect(cudaEventDestroy(gone), cudaErrorInvalidResourceHandle, "cudaEventDestroy of a dead event");
          case 1:
            return expect(cudaEventRecord(gone, some_stream()), cudaErrorInvalidResourceHandle,
                          "cudaEventRecord of a dead event");
          case 2:
            return expect(cudaEventQuery(gone), cudaErrorInvalidResourceHandle, "cudaEventQuery of a dead event");
          case 3:
            return expect(cudaEventSynchronize(gone), cudaErrorInvalidResourceHandle,
                          "cudaEventSynchronize of a dead event");
          default:
            return expect(cudaStreamWaitEvent(some_stream(), gone, 0), cudaErrorInvalidResourceHandle,
                          "cudaStreamWaitEvent of a dead event");
        }
      }
    }
    expect(cudaEventCreate(nullptr), cudaErrorInvalidValue, "cudaEventCreate(nullptr)");
  }

  void host_function_step() {
    int variant = below(10);
    if (variant == 0)
      return expect(cudaLaunchHostFunc(some_stream(), nullptr, &host_log_), cudaErrorInvalidValue,
                    "cudaLaunchHostFunc(nullptr)");
    if (variant == 1)
      return expect(cudaLaunchHostFunc(dead_stream(), fuzz_count_host_call, &host_log_), cudaErrorInvalidResourceHandle,
                    "cudaLaunchHostFunc on a dead stream");
    bool blocking = variant == 2;
    expect(cudaLaunchHostFunc(some_stream(), blocking ? fuzz_block_in_host_call : fuzz_count_host_call, &host_log_),
           cudaSuccess, "cudaLaunchHostFunc");
    ++host_functions_;
    if (blocking) ++blocking_host_functions_;
  }

  // Once the device is idle, every host function has run, and those that
  // tried to wait for the device were refused.
  void check_host_functions() {
    if (host_log_.ran != host_functions_ || host_log_.refused != blocking_host_functions_ || host_log_.allowed != 0)
      diverged("host functions: " + std::to_string(host_log_.ran) + " of " + std::to_string(host_functions_) +
               " ran; a blocking call inside one was refused " + std::to_string(host_log_.refused) + " of " +
               std::to_string(blocking_host_functions_) + " times, allowed " + std::to_string(host_log_.allowed));
  }

  void array_step() {
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    int roll = below(10);
    if ((roll < 3 || arrays_.empty()) && arrays_.size() < 4) {
      cudaArray_t array = nullptr;
      if (chance(10))
        return expect(cudaMallocArray(&array, &desc, 0, 4), cudaErrorInvalidValue, "cudaMallocArray of width 0");
      std::size_t width = 1 + below(64), height = 1 + below(8);
      expect(cudaMallocArray(&array, &desc, width, height), cudaSuccess, "cudaMallocArray");
      std::erase(dead_arrays_, array);
      arrays_.push_back(
          {array, width * sizeof(float), height, std::vector<short>(width * sizeof(float) * height, fuzz_unknown)});
      return;
    }
    if (roll < 4) {
      cudaArray_t gone =
          !dead_arrays_.empty() ? pick(dead_arrays_) : reinterpret_cast<cudaArray_t>(std::uintptr_t{0x3000});
      if (chance(50))
        return expect(cudaFreeArray(gone), cudaErrorInvalidResourceHandle, "cudaFreeArray of a freed array");
      float f = 0;
      return expect(cudaMemcpy2DToArray(gone, 0, 0, &f, sizeof f, sizeof f, 1, cudaMemcpyHostToDevice),
                    cudaErrorInvalidResourceHandle, "cudaMemcpy2DToArray into a freed array");
    }
    if (arrays_.empty()) return;
    std::size_t i = static_cast<std::size_t>(below(static_cast<int>(arrays_.size())));
    fuzz_array& a = arrays_[i];
    if (roll < 5) {
      expect(cudaFreeArray(a.handle), cudaSuccess, "cudaFreeArray");
      dead_arrays_.push_back(a.handle);
      arrays_.erase(arrays_.begin() + static_cast<std::ptrdiff_t>(i));
      for (auto& other : allocations_) other.pending.reset();  // it waited for the device
      return;
    }
    if (roll < 6) {
      std::vector<unsigned char> from(a.row_bytes * a.rows + 8);
      return expect(
          cudaMemcpy2DToArray(a.handle, 4, 0, from.data(), a.row_bytes, a.row_bytes, a.rows, cudaMemcpyHostToDevice),
          cudaErrorInvalidValue, "cudaMemcpy2DToArray past the array's end");
    }
    if (roll < 8) {
      // A box of whole elements, written from the host.
      std::size_t x = static_cast<std::size_t>(below(static_cast<int>(a.row_bytes / 4))) * 4;
      std::size_t width = 4 * (1 + static_cast<std::size_t>(below(static_cast<int>((a.row_bytes - x) / 4))));
      std::size_t y = static_cast<std::size_t>(below(static_cast<int>(a.rows)));
      std::size_t height = 1 + static_cast<std::size_t>(below(static_cast<int>(a.rows - y)));
      std::size_t pitch = width + 4 * static_cast<std::size_t>(below(3));
      std::vector<unsigned char> from(pitch * height);
      for (auto& b : from) b = static_cast<unsigned char>(below(256));
      expect(cudaMemcpy2DToArray(a.handle, x, y, from.data(), pitch, width, height, cudaMemcpyHostToDevice),
             cudaSuccess, "cudaMemcpy2DToArray");
      for (std::size_t r = 0; r < height; ++r)
        for (std::size_t c = 0; c < width; ++c) a.shadow[(y + r) * a.row_bytes + x + c] = from[r * pitch + c];
      return;
    }
    std::vector<unsigned char> back(a.row_bytes * a.rows);
    expect(cudaMemcpy2DFromArray(back.data(), a.row_bytes, a.handle, 0, 0, a.row_bytes, a.rows, cudaMemcpyDeviceToHost),
           cudaSuccess, "cudaMemcpy2DFromArray");
    compare(back, a.shadow, "a CUDA array");
  }

  // cudaMemset2D and cudaMemcpy2D on pitched allocations.
  void pitched_step() {
    std::vector<fuzz_allocation*> pitched;
    for (auto& a : allocations_)
      if (a.kind == fuzz_kind::pitched || a.kind == fuzz_kind::volume) pitched.push_back(&a);
    if (pitched.empty()) return allocate();
    fuzz_allocation& a = *pick(pitched);
    // Every pitched allocation is a whole number of 512-byte rows.
    std::size_t pitch =
        512 * (1 + static_cast<std::size_t>(below(static_cast<int>(std::min<std::size_t>(a.bytes / 512, 2)))));
    std::size_t rows = a.bytes / pitch;
    settle(a, std::nullopt);
    if (chance(20))
      return expect(cudaMemset2D(a.base, pitch, 0, pitch, rows + 1), cudaErrorInvalidValue,
                    "cudaMemset2D past the end");
    if (chance(15))
      return expect(cudaMemcpy2D(a.base, pitch, a.base, pitch, pitch + 1, 1, cudaMemcpyDeviceToDevice),
                    cudaErrorInvalidValue, "cudaMemcpy2D of a row wider than the pitch");
    std::size_t width = 1 + static_cast<std::size_t>(below(static_cast<int>(pitch)));
    std::size_t height = 1 + static_cast<std::size_t>(below(static_cast<int>(rows)));
    if (chance(50)) {
      int value = below(256);
      expect(cudaMemset2D(a.base, pitch, value, width, height), cudaSuccess, "cudaMemset2D");
      for (std::size_t r = 0; r < height; ++r)
        std::fill_n(a.shadow.begin() + static_cast<std::ptrdiff_t>(r * pitch), width, static_cast<short>(value));
      return;
    }
    std::size_t host_pitch = width + static_cast<std::size_t>(below(16));
    std::vector<unsigned char> from(host_pitch * height);
    for (auto& b : from) b = static_cast<unsigned char>(below(256));
    expect(cudaMemcpy2D(a.base, pitch, from.data(), host_pitch, width, height, cudaMemcpyHostToDevice), cudaSuccess,
           "cudaMemcpy2D");
    for (std::size_t r = 0; r < height; ++r)
      for (std::size_t c = 0; c < width; ++c) a.shadow[r * pitch + c] = from[r * host_pitch + c];
  }

  void compare(const std::vector<unsigned char>& got, const std::vector<short>& want, const char* what) {
    for (std::size_t i = 0; i < want.size(); ++i)
      if (want[i] != fuzz_unknown) {
        if (got[i] != want[i])
          diverged(std::string(what) + ": byte " + std::to_string(i) + " is " + std::to_string(got[i]) + ", not " +
                   std::to_string(want[i]));
        ++verified_bytes;
      }
  }

  // Reads an allocation back and compares every byte the model knows.
  void verify(fuzz_allocation& a) {
    settle(a, std::nullopt);
    std::vector<unsigned char> back(a.bytes);
    if (a.kind == fuzz_kind::host || (a.kind == fuzz_kind::managed && chance(50)))
      std::memcpy(back.data(), a.base, a.bytes);  // host-visible
    else
      expect(cudaMemcpy(back.data(), a.base, a.bytes, cudaMemcpyDeviceToHost), cudaSuccess, "cudaMemcpy (read back)");
    compare(back, a.shadow, fuzz_kind_names[static_cast<std::size_t>(a.kind)]);
  }

  void verify_one() {
    if (allocations_.empty()) return allocate();
    verify(pick(allocations_));
  }

  // A kernel that traps: the launch succeeds, the fault comes at the next
  // synchronising call and stays until cudaDeviceReset.
  void trap() {
    ++traps_;
    synchronize_device();  // nothing else may be in flight: the fault skips it
    for (auto& a : allocations_) verify(a);
    expect(weft::launch({2, 32, 0, some_stream()}, fuzz_trap), cudaSuccess, "the launch of a trapping kernel");
    sticky_ = cudaErrorLaunchFailure;
    expect(cudaDeviceSynchronize(), sticky_, "cudaDeviceSynchronize after a trap");
    check_host_functions();
  }

  // Frees all the device's memory, destroys its streams and events, clears
  // the fault. (The last error is taken first: whether a reset clears it is
  // not documented.)
  void reset() {
    check_last_error();
    expect(cudaGetLastError(), last_error_, "cudaGetLastError");
    last_error_ = cudaSuccess;
    expect(cudaDeviceReset(), cudaSuccess, "cudaDeviceReset");
    check_host_functions();
    for (auto& a : allocations_) dead_pointers_.push_back(a.base);
    allocations_.clear();
    for (auto& s : streams_) dead_streams_.push_back(s.handle);
    streams_.clear();
    for (auto& e : events_) dead_events_.push_back(e.handle);
    events_.clear();
    for (auto& a : arrays_) dead_arrays_.push_back(a.handle);
    arrays_.clear();
    sticky_ = cudaSuccess;
    expect(cudaGetLastError(), cudaSuccess, "cudaGetLastError after cudaDeviceReset");
  }

  // Everything read back, then freed the way it was made.
  void finish() {
    if (sticky_ != cudaSuccess) reset();
    synchronize_device();
    for (auto& a : allocations_) verify(a);
    while (!allocations_.empty()) release(allocations_.size() - 1);
    for (auto& a : arrays_) expect(cudaFreeArray(a.handle), cudaSuccess, "cudaFreeArray");
    arrays_.clear();
    for (auto& e : events_) expect(cudaEventDestroy(e.handle), cudaSuccess, "cudaEventDestroy");
    events_.clear();
    for (auto& s : streams_) expect(cudaStreamDestroy(s.handle), cudaSuccess, "cudaStreamDestroy");
    streams_.clear();
    synchronize_device();
    check_last_error();
    expect(cudaGetLastError(), last_error_, "cudaGetLastError");
  }

  std::uint64_t seed_;
  std::mt19937_64 random_;
  cudaError_t sticky_ = cudaSuccess;
  cudaError_t last_error_ = cudaSuccess;
  int traps_ = 0;
  std::vector<fuzz_allocation> allocations_;
  std::vector<fuzz_array> arrays_;
  std::vector<fuzz_stream> streams_;
  std::vector<fuzz_event> events_;
  std::vector<void*> dead_pointers_;
  std::vector<cudaStream_t> dead_streams_;
  std::vector<cudaEvent_t> dead_events_;
  std::vector<cudaArray_t> dead_arrays_;
  fuzz_host_log host_log_;
  int host_functions_ = 0;
  int blocking_host_functions_ = 0;
};

}  // namespace

TEST_CASE("runtime fuzz: random call sequences get CUDA's codes, and valid ones CUDA's results") {
  std::uint64_t seed = fuzz_environment_number("WEFT_FUZZ_SEED", std::random_device{}());
  long steps = static_cast<long>(fuzz_environment_number("WEFT_FUZZ_STEPS", 10000));
  std::fprintf(stderr, "runtime fuzz: WEFT_FUZZ_SEED=%llu, %ld steps\n", static_cast<unsigned long long>(seed), steps);
  INFO("WEFT_FUZZ_SEED=" << seed);
  fuzz_model model(seed);
  fuzz_watchdog watchdog(seed, model.step);
  model.run(steps);
  std::fprintf(stderr, "runtime fuzz: %ld return codes and %ld bytes checked\n", model.checked_calls,
               model.verified_bytes);
  // A run too short to check anything would pass without testing.
  CHECK((steps < 1000 || model.checked_calls > steps));
  CHECK((steps < 1000 || model.verified_bytes > 0));
}
