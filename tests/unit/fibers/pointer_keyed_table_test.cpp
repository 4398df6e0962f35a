// The table in which a sanitizer build keeps each suspended fiber's
// identity (detail/fibers/pointer_keyed_table.hpp), checked against
// std::map over a long run of inserts and removals: a switch to a fiber
// whose record the table lost or mixed up would end the program ("a fiber
// switch to a context the sanitizer annotations do not know") or hand ASan
// the wrong stack.
#include <doctest/doctest.h>
#include <weft/detail/fibers/pointer_keyed_table.hpp>

#include <cstdint>
#include <map>
#include <random>

namespace {

// Keys laid out as a block's parked threads' contexts are: one offset in
// stacks a fixed distance apart, staggered by whole cache lines.
const void* pointer_table_context_key(unsigned stack, unsigned stagger) {
  return reinterpret_cast<const void*>(std::uintptr_t{0x7f0000000000} + std::uintptr_t{stack} * 0x11000 +
                                       std::uintptr_t{stagger} * 64 + 0x100);
}

}  // namespace

TEST_CASE("pointer_keyed_table finds, replaces and removes what std::map does") {
  weft::detail::pointer_keyed_table<long> table;
  std::map<const void*, long> expected;
  std::mt19937_64 random(7);
  for (long step = 0; step < 200000; ++step) {
    const void* key =
        pointer_table_context_key(static_cast<unsigned>(random() % 1500), static_cast<unsigned>(random() % 61));
    if (random() % 2 && expected.size() < 1100) {
      table.insert(key, step);
      expected[key] = step;
    } else {
      long found = -1;
      bool taken = table.take(key, found);
      auto it = expected.find(key);
      REQUIRE(taken == (it != expected.end()));
      if (taken) {
        REQUIRE(found == it->second);
        expected.erase(it);
      }
    }
    REQUIRE(table.size() == expected.size());
  }
  for (const auto& [key, value] : expected) {
    long found = -1;
    REQUIRE(table.take(key, found));
    CHECK(found == value);
  }
  CHECK(table.size() == 0);
  long unused = 0;
  CHECK_FALSE(table.take(pointer_table_context_key(1, 1), unused));
}

TEST_CASE("pointer_keyed_table keeps every entry across growth") {
  weft::detail::pointer_keyed_table<unsigned> table;
  for (unsigned i = 0; i < 1024; ++i) table.insert(pointer_table_context_key(i, i % 61), i);
  CHECK(table.size() == 1024);
  for (unsigned i = 0; i < 1024; ++i) {
    unsigned found = ~0u;
    REQUIRE(table.take(pointer_table_context_key(i, i % 61), found));
    CHECK(found == i);
  }
  CHECK(table.size() == 0);
}
