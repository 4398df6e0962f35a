// The suite's output: a text table of times and ratios, the same as an SVG
// bar chart, and for a worker sweep a table and an SVG of speed-ups. SVG is
// written with fprintf: no dependency.
#pragma once

#include <string>
#include <vector>

#include "problem.hpp"

namespace weft_bench::suite {

inline constexpr double not_run = -1;

struct suite_row {
  kernel_kind kind = kernel_kind::vector_add;
  std::string title;
  double weft = not_run, plain = not_run, pocl = not_run;  // median seconds
  // Median CPU seconds of the whole process (every thread) during a run: on
  // a shared machine, less dependent on what else runs than the times.
  double weft_cpu = not_run, plain_cpu = not_run, pocl_cpu = not_run;
  bool weft_right = true, plain_right = true, pocl_right = true;
  std::string pocl_absence = "not run";  // what the PoCL column says without a time
};

/// The table: kernel, the three medians, weft / plain and weft / PoCL (time
/// ratios: below 1, weft is faster), and the same ratios of CPU time.
/// `pocl` says what the PoCL column is.
void print_suite_table(const std::vector<suite_row>& rows, const std::string& pocl);

/// A bar per ratio and kernel on a log scale, clipped to [1/16, 512].
bool write_ratio_svg(const std::string& path, const std::vector<suite_row>& rows, const std::string& subtitle);

struct worker_count_rows {
  unsigned workers = 0;
  std::vector<suite_row> rows;
};

/// Times at each worker count, and each implementation's speed-up over its
/// own time at the first count.
void print_scaling_table(const std::vector<worker_count_rows>& sweep);

/// With several rounds (rounds_at[w][k]: kernel k's rows at sweep point w,
/// one per round): each implementation's speed-up over the first count,
/// taken within each round, as the median and the range of the rounds.
void print_paired_speedups(const std::vector<unsigned>& workers,
                           const std::vector<std::vector<std::vector<suite_row>>>& rounds_at);

double median(std::vector<double> v);

/// One small chart per kernel: speed-up against workers for weft, the plain
/// loop and PoCL, with the ideal line.
bool write_scaling_svg(const std::string& path, const std::vector<worker_count_rows>& sweep,
                       const std::string& subtitle);

/// Notes on what differs between the implementations of a kernel.
const char* implementation_note(kernel_kind kind);

}  // namespace weft_bench::suite
