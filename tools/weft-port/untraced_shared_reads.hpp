// --race-check: a region version's loads of `__shared__` arrays that cannot
// race, made untraced reads (weft/detail/checks/untraced_read.hpp).
//
// A race needs two accesses to a word within one barrier interval, one of
// them a write. A region whose `weft_threads.each(...)` statement has a
// `weft_threads.barrier();` right before it and right after it (or the end
// of the body) is its block's whole barrier interval: when it writes no
// element of a `__shared__` array S, and nothing can write S but code that
// names S, none of its loads of S can race. The race check's callback for
// each (about a hundred instructions) is then only cost: such a region reads
// S through weft::detail::untraced_read instead, which loses no report
// (docs/architecture.md, "Race check", its static filter).
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>

namespace weft_port_tool {

// The region version's body `{ ... }` (as merge_regions writes it), its
// qualifying reads of `__shared__` arrays wrapped in
// weft::detail::untraced_read(...): the same text, newlines kept, where
// nothing qualifies. `macro_words` are the identifiers that the file's
// macros' bodies use (an array named there may be written by a macro that
// a region invokes), and `pasting_macros` whether one pastes tokens (`##`,
// which could spell any name).
std::string untraced_shared_reads(std::string_view body, const std::set<std::string, std::less<>>& macro_words,
                                  bool pasting_macros);

}  // namespace weft_port_tool
