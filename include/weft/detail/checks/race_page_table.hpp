// The race check's global shadow pages by page number (an address over
// 4096), as the process keeps them and as each launch lists the ones it
// took (race_check.hpp, race_launch::page_of): in chunks of 512
// consecutive numbers, 2 MiB of memory, found through a hash map of
// chunks. A launch touches runs of consecutive pages (its arrays), so that
// a look-up mostly lands in the chunk of the one before, where a hash map
// of pages, rehashed as it grew to a launch's 50,000 pages and with a node
// allocated for each, took a tenth of a streaming kernel's check at 2^24
// floats (perf, 2026-12-01). Not synchronised: its owner's lock guards it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace weft::detail {

template <class Page>
class race_page_table {
 public:
  /// The page of `number`, or null.
  Page* find(std::uintptr_t number) {
    chunk* c = chunk_of(number, false);
    return c ? c->pages[number % chunk_pages] : nullptr;
  }
  /// Makes `page` (not null) the page of `number`, which has none.
  void insert(std::uintptr_t number, Page* page) {
    chunk* c = chunk_of(number, true);
    c->pages[number % chunk_pages] = page;
    ++c->count;
    ++count_;
  }
  /// Forgets the page of `number`, which has one.
  void erase(std::uintptr_t number) {
    chunk* c = chunk_of(number, false);
    c->pages[number % chunk_pages] = nullptr;
    --count_;
    if (--c->count == 0) {
      if (last_ == c) last_ = nullptr;
      chunks_.erase(number / chunk_pages);
    }
  }
  bool empty() const { return count_ == 0; }
  /// Calls `use(number, page)` for each page, in no particular order.
  template <class Use>
  void for_each(Use use) const {
    // A page's first line is what its user reads: the page a few ahead is
    // fetched meanwhile (pages evicted and taken long ago miss the cache).
    constexpr std::size_t ahead = 4;
    for (const auto& [key, c] : chunks_)
      for (std::size_t i = 0; i < chunk_pages; ++i) {
        if (i + ahead < chunk_pages && c->pages[i + ahead]) __builtin_prefetch(c->pages[i + ahead], 1);
        if (Page* page = c->pages[i]) use(key * chunk_pages + i, page);
      }
  }
  void clear() {
    chunks_.clear();
    last_ = nullptr;
    count_ = 0;
  }

 private:
  static constexpr std::size_t chunk_pages = 512;
  struct chunk {
    std::array<Page*, chunk_pages> pages{};
    std::size_t count = 0;
  };
  chunk* chunk_of(std::uintptr_t number, bool make) {
    std::uintptr_t key = number / chunk_pages;
    if (last_ && last_key_ == key) return last_;
    auto at = chunks_.find(key);
    if (at == chunks_.end()) {
      if (!make) return nullptr;
      at = chunks_.emplace(key, std::make_unique<chunk>()).first;
    }
    last_key_ = key;
    last_ = at->second.get();
    return last_;
  }

  std::unordered_map<std::uintptr_t, std::unique_ptr<chunk>> chunks_;
  // The chunk of the last look-up.
  std::uintptr_t last_key_ = 0;
  chunk* last_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace weft::detail
