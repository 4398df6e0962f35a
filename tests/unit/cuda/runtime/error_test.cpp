// Error reporting: cudaGetErrorName / cudaGetErrorString, the per-host-thread
// last error, and the sticky fault a failing kernel leaves, in the order CUDA
// 13 reported them on an H100 (tests/differential/error_codes_probe.expected);
// and what a process forked after weft started its threads gets instead of a
// hang (docs/semantics.md, "Forked processes").
#include <doctest/doctest.h>
#include <weft.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

std::string name(int code) { return cudaGetErrorName(static_cast<cudaError_t>(code)); }
std::string text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }

}  // namespace

TEST_CASE("cudaGetErrorName and cudaGetErrorString") {
  CHECK(name(719) == "cudaErrorLaunchFailure");
  CHECK(text(719) == "unspecified launch failure");
  CHECK(name(12345) == "unrecognized error code");
  CHECK(text(12345) == "unrecognized error code");
  CHECK(name(cudaSuccess) == "cudaSuccess");
  CHECK(text(cudaSuccess) == "no error");
  CHECK(name(cudaErrorInvalidValue) == "cudaErrorInvalidValue");
  CHECK(text(cudaErrorInvalidValue) == "invalid argument");
  CHECK(name(cudaErrorMemoryAllocation) == "cudaErrorMemoryAllocation");
  CHECK(text(cudaErrorMemoryAllocation) == "out of memory");
  CHECK(name(cudaErrorInvalidMemcpyDirection) == "cudaErrorInvalidMemcpyDirection");
  // The numeric values programs compare against.
  CHECK(cudaErrorInvalidValue == 1);
  CHECK(cudaErrorMemoryAllocation == 2);
  CHECK(cudaErrorInvalidMemcpyDirection == 21);
  CHECK(cudaErrorLaunchFailure == 719);
}

TEST_CASE("the last error survives successful calls until it is read") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(cudaMalloc(static_cast<void**>(nullptr), 4) == cudaErrorInvalidValue);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 16) == cudaSuccess);
  CHECK(cudaFree(p) == cudaSuccess);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
  // A later failure replaces it.
  CHECK(cudaMalloc(&p, std::size_t{1} << 60) == cudaErrorMemoryAllocation);
  CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
  CHECK(cudaPeekAtLastError() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("the last error belongs to the host thread that made the call") {
  REQUIRE(cudaGetLastError() == cudaSuccess);
  cudaError_t seen_there = cudaErrorUnknown, left_there = cudaErrorUnknown;
  std::thread other([&] {
    seen_there = cudaPeekAtLastError();
    cudaFree(reinterpret_cast<void*>(&seen_there));  // not device memory: fails
    left_there = cudaGetLastError();
  });
  other.join();
  CHECK(seen_there == cudaSuccess);
  CHECK(left_there == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);  // this thread never failed

  CHECK(cudaFree(reinterpret_cast<void*>(&left_there)) == cudaErrorInvalidValue);
  std::thread clean([&] { seen_there = cudaGetLastError(); });
  clean.join();
  CHECK(seen_there == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
}

TEST_CASE("a faulting kernel: what each later call reports, as on an H100") {
  // weft's stand-in for the probe's __trap(): an uncaught exception.
  auto trap = [] {
    if (threadIdx.x == 3) throw std::runtime_error("trap");
  };
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(weft::launch(2, 32, trap) == cudaSuccess);
  CHECK(cudaPeekAtLastError() == cudaSuccess);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 16) == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  int host_int = 0;
  CHECK(cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyDefault) == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaMemset(p, 0, 4) == cudaErrorLaunchFailure);
  CHECK(cudaGetErrorName(cudaGetLastError()) == std::string("cudaErrorLaunchFailure"));
  CHECK_FALSE(weft::fault_message().empty());
  CHECK(cudaDeviceReset() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(weft::fault_message().empty());
  CHECK(cudaMalloc(&p, 16) == cudaSuccess);
  CHECK(cudaFree(p) == cudaSuccess);
}

namespace {

// How a forked child ended, and what it wrote to stderr.
struct forked_outcome {
  int status = 0;
  std::string errors;
};

// Runs `body` in a forked child, which ends with std::exit(body()), so that
// its static destructors run; a child still running after 10 s is killed by
// SIGALRM, so that a hang fails the case. A crash ends it by its signal, not
// through doctest's report.
template <class Body>
forked_outcome run_forked(Body body) {
  int pipe_ends[2];
  REQUIRE(::pipe(pipe_ends) == 0);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    for (int s : {SIGALRM, SIGSEGV, SIGBUS, SIGABRT}) ::signal(s, SIG_DFL);
    ::alarm(10);
    ::dup2(pipe_ends[1], STDERR_FILENO);
    ::close(pipe_ends[0]);
    std::exit(body());
  }
  ::close(pipe_ends[1]);
  forked_outcome outcome;
  char buffer[1024];
  for (ssize_t n; (n = ::read(pipe_ends[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) break;
    outcome.errors.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_ends[0]);
  REQUIRE(::waitpid(child, &outcome.status, 0) == child);
  return outcome;
}

std::size_t times_written(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// In a forked child: 0 if every call failed as an uninitialised device's,
// else the number of the first that did not. Doctest's checks would stay in
// the child, so the exit status carries the answer.
int forked_child_calls() {
  int step = 0;
  auto refused = [&](cudaError_t e) {
    ++step;
    return e == cudaErrorInitializationError && cudaGetLastError() == cudaErrorInitializationError &&
           cudaGetLastError() == cudaSuccess;
  };
  int count = 0;
  if (!refused(cudaGetDeviceCount(&count))) return step;
  void* p = nullptr;
  if (!refused(cudaMalloc(&p, 64))) return step;
  if (!refused(weft::launch(1, 32, [] {}))) return step;
  if (!refused(cudaDeviceSynchronize())) return step;
  int host_int = 0;
  if (!refused(cudaMemcpy(&host_int, &host_int, 4, cudaMemcpyDefault))) return step;
  if (!refused(cudaStreamSynchronize(nullptr))) return step;
  cudaStream_t stream = nullptr;
  if (!refused(cudaStreamCreate(&stream))) return step;
  cudaEvent_t event = nullptr;
  if (!refused(cudaEventCreate(&event))) return step;
  if (!refused(cudaFree(nullptr))) return step;
  if (!refused(cudaDeviceReset())) return step;
  if (!refused(cudaDeviceSynchronize())) return step;  // the reset brought nothing back
  return 0;
}

constexpr const char* forked_message = "forked after weft started its threads";

constexpr const char* fresh_process_ran = "the fresh process's fork case ran to its end";
constexpr const char* fresh_process_variable = "WEFT_TEST_FRESH_PROCESS";
constexpr const char* fresh_process_case = "fork: in a fresh process a child forked before weft starts works normally";

}  // namespace

TEST_CASE("fork: a child of a process whose kernel is running fails every call instead of hanging") {
  std::atomic<bool> release{false};
  std::atomic<bool> started{false};
  // A grid that holds a worker (and the device's command graph) at the fork.
  auto hold = [&] {
    started.store(true);
    while (!release.load()) std::this_thread::yield();
  };
  REQUIRE(weft::launch(1, 1, hold) == cudaSuccess);
  while (!started.load()) std::this_thread::yield();
  forked_outcome child = run_forked(forked_child_calls);
  release.store(true);
  INFO("child's stderr: " << child.errors);
  CHECK_FALSE(WIFSIGNALED(child.status));  // SIGALRM: it hung; SIGSEGV, SIGABRT: it crashed
  REQUIRE(WIFEXITED(child.status));
  CHECK(WEXITSTATUS(child.status) == 0);  // else the number of the call that did not fail
  CHECK(times_written(child.errors, forked_message) == 1);

  // The parent is unaffected.
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, sizeof(int)) == cudaSuccess);
  CHECK(weft::launch(1, 1, [=] { *out = 7; }) == cudaSuccess);
  int seen = 0;
  CHECK(cudaMemcpy(&seen, out, sizeof seen, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(seen == 7);
  CHECK(cudaFree(out) == cudaSuccess);
}

TEST_CASE("fork: a child that exits at once after the fork leaves without touching the parent's threads") {
  REQUIRE(weft::launch(2, 32, [] {}) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  forked_outcome child = run_forked([] { return 0; });
  INFO("child's stderr: " << child.errors);
  REQUIRE(WIFEXITED(child.status));
  CHECK(WEXITSTATUS(child.status) == 0);
  CHECK(child.errors.empty());  // no call, no message
}

TEST_CASE(fresh_process_case) {
  if (!std::getenv(fresh_process_variable)) {
    // This process has started weft's threads: the case runs again in a
    // fresh copy of the test program, which has not.
    std::string filter = std::string("--test-case=") + fresh_process_case;
    forked_outcome fresh = run_forked([&] {
      ::setenv(fresh_process_variable, "1", 1);
      ::dup2(STDERR_FILENO, STDOUT_FILENO);
      char* arguments[] = {const_cast<char*>("weft_tests"), filter.data(), const_cast<char*>("--no-version"), nullptr};
      ::execv("/proc/self/exe", arguments);
      return 127;
    });
    INFO("fresh process's output: " << fresh.errors);
    REQUIRE(WIFEXITED(fresh.status));
    CHECK(WEXITSTATUS(fresh.status) == 0);
    CHECK(times_written(fresh.errors, fresh_process_ran) == 1);  // the filter found the case
    return;
  }
  // Memory made before the fork is the child's own copy, and the child
  // starts its own workers.
  int* out = nullptr;
  REQUIRE(cudaMalloc(&out, sizeof(int)) == cudaSuccess);
  forked_outcome child = run_forked([=] {
    if (weft::launch(1, 1, [=] { *out = 5; }) != cudaSuccess) return 1;
    int seen = 0;
    if (cudaMemcpy(&seen, out, sizeof seen, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
    if (seen != 5) return 3;
    if (cudaFree(out) != cudaSuccess) return 4;
    return cudaGetLastError() == cudaSuccess ? 0 : 5;
  });
  INFO("child's stderr: " << child.errors);
  REQUIRE(WIFEXITED(child.status));
  CHECK(WEXITSTATUS(child.status) == 0);
  CHECK(times_written(child.errors, forked_message) == 0);
  CHECK(weft::launch(1, 1, [=] { *out = 6; }) == cudaSuccess);
  int seen = 0;
  CHECK(cudaMemcpy(&seen, out, sizeof seen, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(seen == 6);  // not the child's 5
  CHECK(cudaFree(out) == cudaSuccess);
  std::printf("%s\n", fresh_process_ran);
}
