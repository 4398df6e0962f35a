// weft_bench's `suite` section: twelve kernels in CUDA spelling through weft,
// each against a plain C++ loop on as many threads and against the same
// kernel in OpenCL C on PoCL, in one run; results checked against the host.
#pragma once

#include <string>
#include <vector>

#include "problem.hpp"

namespace weft_bench::suite {

struct suite_options {
  bool quick = false;
  int repeat = 7;
  std::vector<kernel_kind> kernels;  // empty: all of them
  std::string svg_path;              // --svg: the ratio chart
  std::vector<unsigned> sweep;       // --workers-sweep 1,2,4: a child process per count
  int sweep_rounds = 1;              // --sweep-rounds: kernels' worker counts interleaved, N rounds
  std::string scaling_svg_path;      // --scaling-svg
  bool rows_only = false;            // --suite-rows: a sweep's child, printing machine-readable rows
};

/// Consumes argv[i] (and its value) if it is one of the suite's options;
/// false if it is not, or if its value is missing or malformed.
bool parse_suite_argument(int& i, int argc, char** argv, suite_options& o);

/// The options' usage lines.
const char* suite_usage();

/// Runs the suite; false if any implementation computed a wrong result or failed.
bool run_suite(const suite_options& o);

}  // namespace weft_bench::suite
