// The end of curand_init that the sequence generators share: move to the
// subsequence, then to the offset within it, and hold no cached normal.
#pragma once

namespace weft::detail {

/// skipahead_sequence and skipahead are the generator's own (found by
/// argument-dependent lookup when this is instantiated).
template <class State>
void start_curand_state(State* state, unsigned long long subsequence, unsigned long long offset) {
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.0f;
  state->boxmuller_extra_double = 0.0;
}

}  // namespace weft::detail
