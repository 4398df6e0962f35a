// NVTX, the annotation API of NVIDIA's tools (<nvtx3/nvToolsExt.h>): a
// program names spans of its host code with ranges (nvtxRangePushA/Pop,
// nvtxRangeStartA/End) and instants with marks (nvtxMarkA). weft is the
// tool that receives them: under WEFT_TRACE they are drawn on the calling
// host thread's track of the trace timeline, beside the streams and SM
// workers (docs/trace.md); otherwise only the nesting is kept, which
// nvtxRangePush and nvtxRangePop report. Names given as wide strings are
// drawn with their non-ASCII characters as '?'. Domains, categories, named
// threads and registered strings are not provided.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "weft/detail/trace/annotations.hpp"
#include "weft/detail/trace/trace.hpp"

// ---- NVTX's types, with NVTX 3's values ----

enum nvtxColorType_t : int {
  NVTX_COLOR_UNKNOWN = 0,
  NVTX_COLOR_ARGB = 1,
};

enum nvtxMessageType_t : int {
  NVTX_MESSAGE_UNKNOWN = 0,
  NVTX_MESSAGE_TYPE_ASCII = 1,
  NVTX_MESSAGE_TYPE_UNICODE = 2,
  NVTX_MESSAGE_TYPE_REGISTERED = 3,
};

enum nvtxPayloadType_t : int {
  NVTX_PAYLOAD_UNKNOWN = 0,
  NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
  NVTX_PAYLOAD_TYPE_INT64 = 2,
  NVTX_PAYLOAD_TYPE_DOUBLE = 3,
  NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
  NVTX_PAYLOAD_TYPE_INT32 = 5,
  NVTX_PAYLOAD_TYPE_FLOAT = 6,
};

struct nvtxStringHandle;
using nvtxStringHandle_t = nvtxStringHandle*;
using nvtxRangeId_t = std::uint64_t;

/// NVTX 3's attribute structure, field for field; a program fills it after
/// zeroing it, with version and size set.
struct nvtxEventAttributes_v2 {
  std::uint16_t version;
  std::uint16_t size;
  std::uint32_t category;
  std::int32_t colorType;
  std::uint32_t color;
  std::int32_t payloadType;
  std::int32_t reserved0;
  union payload_t {
    std::uint64_t ullValue;
    std::int64_t llValue;
    double dValue;
    std::uint32_t uiValue;
    std::int32_t iValue;
    float fValue;
  } payload;
  std::int32_t messageType;
  union message_t {
    const char* ascii;
    const wchar_t* unicode;
    nvtxStringHandle_t registered;
  } message;
};
using nvtxEventAttributes_t = nvtxEventAttributes_v2;

namespace weft::surface::nvtx {

using steady = weft::detail::trace::annotations::steady;

struct open_range {
  std::string name;
  steady::time_point began;
};

/// The calling host thread's pushed ranges, innermost last.
inline std::vector<open_range>& stack() {
  thread_local std::vector<open_range> ranges;
  return ranges;
}

inline std::string narrow(const wchar_t* s) {
  std::string out;
  for (; s && *s; ++s) out.push_back(*s >= 0x20 && *s < 0x7f ? static_cast<char>(*s) : '?');
  return out;
}

inline std::string name_of(const nvtxEventAttributes_t* a) {
  if (!a) return {};
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
  if (a->messageType == NVTX_MESSAGE_TYPE_UNICODE) return narrow(a->message.unicode);
  return {};
}

inline void record(std::string name, steady::time_point began, steady::time_point ended, bool instant) {
  if (!weft::detail::trace::enabled) [[likely]]
    return;
  auto& a = weft::detail::trace::annotations::get();
  a.add(a.thread_number(), std::move(name), began, ended, instant);
}

/// Ranges started by nvtxRangeStart, by id: one may end on another host thread.
inline std::mutex& started_mutex() {
  static std::mutex m;
  return m;
}
inline std::unordered_map<nvtxRangeId_t, open_range>& started() {
  static std::unordered_map<nvtxRangeId_t, open_range> ranges;
  return ranges;
}

/// A range started by nvtxRangeStart: it may end on another host thread.
inline nvtxRangeId_t start(std::string name) {
  static std::atomic<nvtxRangeId_t> next{1};
  nvtxRangeId_t id = next.fetch_add(1);
  if (weft::detail::trace::enabled) [[unlikely]] {
    std::lock_guard lock(started_mutex());
    started()[id] = {std::move(name), steady::now()};
  }
  return id;
}

/// Opens a range on this thread; returns its level (0 for the outermost).
inline int push(std::string name) {
  auto& s = stack();
  s.push_back({std::move(name), weft::detail::trace::enabled ? steady::now() : steady::time_point{}});
  return static_cast<int>(s.size()) - 1;
}

}  // namespace weft::surface::nvtx

inline int nvtxRangePushA(const char* message) { return weft::surface::nvtx::push(message ? message : ""); }
inline int nvtxRangePushW(const wchar_t* message) {
  return weft::surface::nvtx::push(weft::surface::nvtx::narrow(message));
}
inline int nvtxRangePushEx(const nvtxEventAttributes_t* attributes) {
  return weft::surface::nvtx::push(weft::surface::nvtx::name_of(attributes));
}

/// Closes this thread's innermost range and returns its level; -1 when
/// none is open (NVTX's code for an error).
inline int nvtxRangePop() {
  using namespace weft::surface::nvtx;
  auto& s = stack();
  if (s.empty()) return -1;
  open_range r = std::move(s.back());
  s.pop_back();
  record(std::move(r.name), r.began, steady::now(), false);
  return static_cast<int>(s.size());
}

inline void nvtxMarkA(const char* message) {
  auto now = weft::surface::nvtx::steady::now();
  weft::surface::nvtx::record(message ? message : "", now, now, true);
}
inline void nvtxMarkW(const wchar_t* message) {
  auto now = weft::surface::nvtx::steady::now();
  weft::surface::nvtx::record(weft::surface::nvtx::narrow(message), now, now, true);
}
inline void nvtxMarkEx(const nvtxEventAttributes_t* attributes) {
  auto now = weft::surface::nvtx::steady::now();
  weft::surface::nvtx::record(weft::surface::nvtx::name_of(attributes), now, now, true);
}

inline nvtxRangeId_t nvtxRangeStartA(const char* message) { return weft::surface::nvtx::start(message ? message : ""); }
inline nvtxRangeId_t nvtxRangeStartW(const wchar_t* message) {
  return weft::surface::nvtx::start(weft::surface::nvtx::narrow(message));
}
inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t* attributes) {
  return weft::surface::nvtx::start(weft::surface::nvtx::name_of(attributes));
}

/// Ends a range started by nvtxRangeStart*, drawn on the track of the thread
/// that ends it; an unknown id is ignored, as NVTX ignores it.
inline void nvtxRangeEnd(nvtxRangeId_t id) {
  using namespace weft::surface::nvtx;
  if (!weft::detail::trace::enabled) [[likely]]
    return;
  open_range r;
  {
    std::lock_guard lock(started_mutex());
    auto it = started().find(id);
    if (it == started().end()) return;
    r = std::move(it->second);
    started().erase(it);
  }
  record(std::move(r.name), r.began, steady::now(), false);
}
