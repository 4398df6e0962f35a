// Runs part of a test under a chosen WEFT_SCHEDULE (docs/debugging.md,
// "Schedule permutation") and puts back the schedule in use, which may be
// the environment's (ctest's unit_tests.schedule_random runs the executor's
// and device code's tests under random:<seed>).
//
// A test whose report names the first thread to go wrong (a warp mask that
// omits its caller, a barrier's extra arrival) depends on the order in which
// threads run: such a test pins the forward schedule, and says so.
#pragma once

#include <weft.hpp>

class schedule_scope {
 public:
  explicit schedule_scope(weft::detail::schedule_setting setting) : saved_(weft::detail::schedule_in_use()) {
    weft::detail::use_schedule(setting);
  }
  schedule_scope(const schedule_scope&) = delete;
  schedule_scope& operator=(const schedule_scope&) = delete;
  ~schedule_scope() { weft::detail::use_schedule(saved_); }

 private:
  weft::detail::schedule_setting saved_;
};

/// The forward schedule, weft's default order.
inline schedule_scope forward_schedule() { return schedule_scope({weft::detail::schedule_order::forward, 0}); }
