// How SM workers claim a large grid's blocks (grid_job::claim): in chunks
// of consecutive blocks, every block once, with chunks that shrink towards
// the end so that no worker is left running a whole chunk after the others
// have run out (docs/performance.md, "Scaling, 1 to 16 workers").
#include <doctest/doctest.h>
#include <weft.hpp>

#include <cstdint>
#include <tuple>
#include <vector>

namespace {

struct guided_claim_record {
  std::uint64_t first, end;
};

// The claims of a grid of `blocks` blocks for a pool of `workers`, taken in
// turn by one thread until none is left.
std::vector<guided_claim_record> guided_claims_of(unsigned blocks, unsigned workers) {
  auto noop = [] {};
  weft::detail::launch_shape shape{dim3(blocks), dim3(32), 0, weft::detail::runtime::get().stack_bytes(), 0};
  weft::detail::kernel_grid<decltype(noop), std::tuple<>> grid(shape, noop, {});
  grid.set_chunk_for(workers);
  std::vector<guided_claim_record> claims;
  for (;;) {
    auto [first, end] = grid.claim();
    if (first >= end) break;
    claims.push_back({first, end});
  }
  CHECK_FALSE(grid.has_unclaimed_blocks());
  return claims;
}

}  // namespace

TEST_CASE("a large grid's blocks are claimed once each, in order, in chunks that shrink to one block at the end") {
  for (unsigned workers : {1u, 2u, 16u}) {
    for (unsigned blocks : {4096u, 16384u, 65536u, 65537u}) {
      CAPTURE(workers);
      CAPTURE(blocks);
      std::vector<guided_claim_record> claims = guided_claims_of(blocks, workers);
      REQUIRE(!claims.empty());
      std::uint64_t next = 0, previous_size = ~std::uint64_t{0};
      for (const guided_claim_record& c : claims) {
        std::uint64_t size = c.end - c.first, left = blocks - c.first;
        CHECK(c.first == next);
        CHECK(size <= previous_size);
        CHECK(size <= 64);
        // Never more than half a worker's share of what is left, so the
        // other workers still have blocks while this chunk runs.
        CHECK((size == 1 || size <= left / (2 * workers)));
        next = c.end;
        previous_size = size;
      }
      CHECK(next == blocks);
      CHECK(claims.back().end - claims.back().first == 1);
      // Chunks still: far fewer claims than blocks.
      CHECK(claims.size() < blocks / 8);
    }
  }
}

TEST_CASE("a grid no larger than a GPU holds at once is claimed a block at a time") {
  std::vector<guided_claim_record> claims = guided_claims_of(2048, 16);
  REQUIRE(claims.size() == 2048);
  for (std::uint64_t i = 0; i < claims.size(); ++i) CHECK((claims[i].first == i && claims[i].end == i + 1));
}
