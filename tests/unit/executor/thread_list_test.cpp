// thread_list::push_bits, the ready list's append of a warp's released lanes:
// ids in increasing order, whichever lanes are set, a whole warp and a whole
// warp but one (the converged warp's release, written as two runs) included.
#include <doctest/doctest.h>
#include <weft.hpp>

#include <vector>

namespace {

std::vector<unsigned> pushed(unsigned first, unsigned bits) {
  weft::detail::thread_list list;
  list.reserve(100);
  list.push_back(7);  // appends after what the list holds
  unsigned count = list.push_bits(first, bits);
  std::vector<unsigned> ids(list.begin(), list.end());
  CHECK(count == ids.size() - 1);
  return ids;
}

std::vector<unsigned> expected(unsigned first, unsigned bits) {
  std::vector<unsigned> ids{7};
  for (unsigned lane = 0; lane < 32; ++lane)
    if (bits >> lane & 1) ids.push_back(first + lane);
  return ids;
}

}  // namespace

TEST_CASE("push_bits appends the ids of the set lanes in increasing order") {
  for (unsigned missing = 0; missing < 32; ++missing) {
    unsigned bits = ~(1u << missing);
    INFO("all lanes but " << missing);
    CHECK(pushed(64, bits) == expected(64, bits));
  }
  for (unsigned bits : {~0u, 0u, 1u, 0x80000000u, 0x3u, 0xc0000000u, 0x55555555u, 0x7ffffffeu, 0xfffffff0u, 0x0ffffffu})
    CHECK(pushed(32, bits) == expected(32, bits));
}
