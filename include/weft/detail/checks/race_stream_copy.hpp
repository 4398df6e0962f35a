// Part of the race check (race_check.hpp): a copy or set in a stream
// (cudaMemcpyAsync, cudaMemsetAsync, cudaMemcpy, ...) as an access of its
// own command. On a GPU a copy engine moves the bytes while kernels in
// other streams run, so a kernel that CUDA does not order with the copy
// races it as another kernel would. The command gets a launch's identity
// (a place among the commands CUDA orders, a tag, a name such as
// "cudaMemcpyAsync (stream 0x...)") and, as it runs, checks and records its
// reads of the source and writes of the destination in the global shadow,
// where weft allocated the memory (device, managed, pinned) or it is a
// __device__ variable; kernels meet its records as another launch's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/detail/base/text_format.hpp"
#include "weft/detail/checks/race_check.hpp"

namespace weft::detail {

/// A byte range that a copy or set reads or writes.
struct race_command_span {
  std::uintptr_t begin, end;
  bool write;
};

/// A copy or set, traced as its command runs (host_task.hpp's perform).
class race_stream_copy {
 public:
  /// `call`: the CUDA function ("cudaMemcpyAsync"), `stream` its stream's
  /// handle (null: the default stream), as reports name it.
  race_stream_copy(int device, const char* call, const void* stream)
      : race_stream_copy(device, name_of(call, stream)) {}
  /// `name`: what reports call it ("graph memset node").
  race_stream_copy(int device, std::string name)
      : name_(std::move(name)),
        site_(race_copy_sites::named(name_)),
        launch_(dim3{1, 1, 1}, dim3{1, 1, 1}, device, [name = name_] { return name; }) {
    launch_.identity()->command = true;
    launch_.identity()->name = name_;  // kept: it may own no page when it finishes (done_with_page)
  }

  void reads(const void* p, std::size_t bytes) { add(p, bytes, false); }
  void writes(const void* p, std::size_t bytes) { add(p, bytes, true); }

  race_launch& launch() { return launch_; }

  /// Checks the copy's accesses against the records of commands that CUDA
  /// does not order with it, and records them; on the thread that runs it,
  /// which may be a worker in the middle of a block (a kernel's trigger of
  /// programmatic launch completion lets a copy start): a worker of its
  /// own, and the block's worker first lets go of its pages.
  void run() {
    if (race_worker* running = race_running) running->let_go_of_pages();
    static thread_local std::unique_ptr<race_worker> worker;  // on the heap: the TLS block is __shared__ memory's
    if (!worker) worker = std::make_unique<race_worker>();
    worker->trace_command(launch_, spans_, site_);
  }
  /// Its bytes have moved: its records stay for the commands that CUDA
  /// does not order after it.
  void finish() { launch_.finish(true); }

 private:
  static std::string name_of(const char* call, const void* stream) {
    std::string text = call;
    if (stream)
      append_format(text, " (stream %p)", stream);
    else
      text += " (the default stream)";
    return text;
  }
  void add(const void* p, std::size_t bytes, bool write) {
    auto begin = reinterpret_cast<std::uintptr_t>(p);
    if (bytes != 0) spans_.push_back({begin, begin + bytes, write});
  }

  std::string name_;
  std::uintptr_t site_;
  race_launch launch_;
  std::vector<race_command_span> spans_;
};

/// A copy or set's trace for the race check, to give perform(); null in a
/// build without the check, where nothing else of it is made.
inline std::shared_ptr<race_stream_copy> race_trace_copy(int device, const char* call, const void* stream) {
  if constexpr (race_check_build)
    return std::make_shared<race_stream_copy>(device, call, stream);
  else
    return nullptr;
}

// The pages of each span that weft's memory holds, one after another: each
// held only while its words are checked and recorded, then let go (so that
// a large copy keeps no more shadow than a kernel of its size would, and
// holds up no block for long), and given back to the retained pages.
// Every word's records are checked only in a page where a command that CUDA
// does not order with the copy has records (its tags say so); elsewhere the
// copy's records are stored as they are, a fill of the shadow.
inline void race_worker::trace_command(race_launch& command, const std::vector<race_command_span>& spans,
                                       std::uintptr_t pc) {
  if (!static_tls_found_) find_static_tls();
  if (held_count_ != 0) let_go_of_pages();
  bool was_busy = busy_;
  busy_ = true;
  launch_ = &command;
  launch_serial_ = 0;  // the next block starts afresh
  block_ = 0;
  state_ = 0;
  stop_streaming();
  epoch_ = 0;
  group_epoch_ = 0;
  fences_ = &command.fence_counter(0);
  launch_tag_ = command.tag();
  identity_ = command.identity();
  ordered_by_tag_.fill(nullptr);
  ranges_ = {};
  race_record made[2] = {race_record(site_of(pc), current_state(), 0, false, 1, 0, launch_tag_),
                         race_record(site_of(pc), current_state(), 0, true, 1, 0, launch_tag_)};
  race_access copy{.launch = command.identity(), .pc = pc};
  race_ranges memory = command.allocations();
  if (static_data_begin_ != static_data_end_) memory.emplace_back(static_data_begin_, static_data_end_);
  for (const race_command_span& span : spans)
    for (auto [allocation_begin, allocation_end] : memory) {
      std::uintptr_t begin = std::max(span.begin, allocation_begin) & ~std::uintptr_t{3};
      std::uintptr_t end = std::min(span.end, allocation_end);
      if (begin >= end) continue;
      race_space space = allocation_begin == static_data_begin_ ? race_space::static_global : race_space::global;
      ranges_[0] = {allocation_begin, allocation_end, true};  // for a report's "byte n of the allocation"
      copy.write = span.write;
      for (std::uintptr_t at = begin; at < end;) {
        std::uintptr_t page_end = std::min(end, (at / race_launch::page::bytes + 1) * race_launch::page::bytes);
        race_launch::page& page = command.page_of(at);
        hold_page(page);
        if (page.owners[launch_tag_].get() == identity_ || own_held(page)) {
          checking_page_ = &page;
          record_command_words(page, at, page_end, made[span.write], copy, space);
        }
        let_go_of_pages();
        command.done_with_page(at);
        at = page_end;
      }
    }
  launch_ = nullptr;
  busy_ = was_busy;
}

inline void race_worker::record_command_words(race_launch::page& page, std::uintptr_t begin, std::uintptr_t end,
                                              const race_record& now, const race_access& copy, race_space space) {
  if (page.saturation.complete.load(std::memory_order_relaxed)) page.saturation.spoil();
  bool others = false;  // whether a command that CUDA does not order with this one has records here
  for (std::uint32_t tag = 1; tag < 256 && !others; ++tag)
    if (tag != launch_tag_ && (page.tagged[tag / 64] >> (tag % 64) & 1))
      others = unordered_launch(page, race_record(0, 0, 0, false, 0, 0, tag)) != nullptr;
  if (!others) {  // the copy's records, stored as they are: a fill
    std::size_t first = begin % race_launch::page::bytes / 4, count = (end - begin + 3) / 4;
    race_record* made = &page.words.make(now.write() ? race_shadow::writes : race_shadow::latest_reads, first);
    for (std::size_t i = 0; i < count; ++i) made[i].store(now);
    if (now.write())
      for (race_shadow::part reads : {race_shadow::latest_reads, race_shadow::earlier_reads})
        if (race_record* r = page.words.find(reads, first)) std::fill(r, r + count, race_record{});
    return;
  }
  bool reported = false;  // once per page: a large copy over a kernel's output meets it at every word
  for (std::uintptr_t word = begin; word < end; word += 4) {
    std::size_t at = word % race_launch::page::bytes / 4;
    race_record* last_write = page.words.find(race_shadow::writes, at);
    race_record* latest_read = page.words.find(race_shadow::latest_reads, at);
    race_record* earlier_read = page.words.find(race_shadow::earlier_reads, at);
    auto unordered = [&](race_record* r) -> race_launch_identity* {
      return r && r->launch() != launch_tag_ && r->launch() != 0 ? unordered_launch(page, *r) : nullptr;
    };
    if (!reported) {
      const race_record* hazard = nullptr;
      race_kind kind{};
      race_launch_identity* other = nullptr;
      if ((other = unordered(last_write))) {
        hazard = last_write;
        kind = now.write() ? race_kind::write_after_write : race_kind::read_after_write;
      } else if (now.write() && (other = unordered(latest_read))) {
        hazard = latest_read;
        kind = race_kind::write_after_read;
      } else if (now.write() && (other = unordered(earlier_read))) {
        hazard = earlier_read;
        kind = race_kind::write_after_read;
      }
      if (hazard) {
        reported = true;
        report(kind, described_of(*hazard, *other), copy, word, space);
      }
    }
    if (now.write()) {
      page.words.make(race_shadow::writes, at).store(now);
      if (latest_read) latest_read->forget();
      if (earlier_read) earlier_read->forget();
    } else {
      if (unordered(latest_read)) page.words.make(race_shadow::earlier_reads, at) = *latest_read;
      page.words.make(race_shadow::latest_reads, at).store(now);
    }
  }
}

}  // namespace weft::detail
