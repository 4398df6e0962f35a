// NVTX ranges and marks and cudaProfilerStart/Stop: what they return, and
// how the timeline draws them (a track per host thread of a "host" process).
#include <doctest/doctest.h>
#include <weft/compat/cuda_profiler_api.h>
#include <weft/compat/nvtx3/nvToolsExt.h>
#include <weft.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

TEST_CASE("nvtxRangePush and nvtxRangePop report the nesting level, per host thread") {
  CHECK(nvtxRangePushA("outer") == 0);
  CHECK(nvtxRangePushA("inner") == 1);
  std::thread([] {
    CHECK(nvtxRangePushW(L"other thread") == 0);
    CHECK(nvtxRangePop() == 0);
    CHECK(nvtxRangePop() == -1);
  }).join();
  CHECK(nvtxRangePop() == 1);
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xff00ff00u;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "with attributes";
  CHECK(nvtxRangePushEx(&a) == 1);
  nvtxMarkEx(&a);
  nvtxMarkA("a mark");
  CHECK(nvtxRangePop() == 1);
  CHECK(nvtxRangePop() == 0);
  CHECK(nvtxRangePop() == -1);  // nothing open: NVTX's error

  nvtxRangeId_t r = nvtxRangeStartA("started");
  nvtxRangeId_t s = nvtxRangeStartEx(&a);
  CHECK(r != s);
  nvtxRangeEnd(s);
  std::thread([r] { nvtxRangeEnd(r); }).join();  // a started range may end elsewhere
  nvtxRangeEnd(12345678);                        // unknown: ignored
}

TEST_CASE("cudaProfilerStart and cudaProfilerStop succeed") {
  CHECK(cudaProfilerStart() == cudaSuccess);
  CHECK(cudaProfilerStop() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("annotations are written as slices and instants on host thread tracks") {
  using weft::detail::trace::annotations;
  auto& a = annotations::get();
  auto epoch = annotations::steady::now();
  int thread = a.thread_number();
  CHECK(thread == a.thread_number());  // one number per host thread
  a.add(thread, "range \"quoted\"", epoch + std::chrono::microseconds(5), epoch + std::chrono::microseconds(7), false);
  a.add(thread, "mark", epoch + std::chrono::microseconds(9), epoch + std::chrono::microseconds(9), true);
  char buffer[4096] = {};
  std::FILE* f = fmemopen(buffer, sizeof buffer - 1, "w");
  REQUIRE(f);
  bool first = true;
  a.write_json(f, first, epoch);
  std::fclose(f);
  std::string json(buffer);
  CHECK(!first);
  CHECK(json.find("\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"host\"}") != std::string::npos);
  CHECK(json.find("\"args\":{\"name\":\"host thread " + std::to_string(thread) + "\"}") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"name\":\"range \\\"quoted\\\"\",\"cat\":\"annotation\",\"pid\":0,\"tid\":" +
                  std::to_string(thread) + ",\"ts\":5.000,\"dur\":2.000}") != std::string::npos);
  CHECK(json.find("{\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\",\"cat\":\"annotation\",\"pid\":0,\"tid\":" +
                  std::to_string(thread) + ",\"ts\":9.000}") != std::string::npos);
}
