#include "suite.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "implementation.hpp"
#include "opencl_runner.hpp"
#include "report.hpp"

namespace weft_bench::suite {
namespace {

constexpr const char* implementation_names[] = {"weft", "plain", "PoCL"};

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](timeval t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// One warm-up run of each implementation, then `repeat` rounds in which
/// each runs once, the order rotating from round to round so that a change
/// of load on a shared machine hits all of them alike. Then each result is
/// checked against the reference.
suite_row measure(const problem& p, unsigned workers, const std::shared_ptr<opencl_session>& opencl, int repeat) {
  std::array<std::unique_ptr<implementation>, 3> sides = {
      make_weft_implementation(p), make_plain_implementation(p, workers), make_opencl_implementation(opencl, p)};
  std::array<std::vector<double>, 3> times, cpu_times;
  for (auto& side : sides)
    if (side) side->run();
  for (int round = 0; round < repeat; ++round)
    for (int k = 0; k < 3; ++k) {
      int s = (round + k) % 3;
      if (!sides[s]) continue;
      double cpu_start = process_cpu_seconds();
      auto start = std::chrono::steady_clock::now();
      sides[s]->run();
      times[s].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      cpu_times[s].push_back(process_cpu_seconds() - cpu_start);
    }

  suite_row row;
  row.kind = p.kind;
  row.title = p.title;
  double* medians[] = {&row.weft, &row.plain, &row.pocl};
  double* cpu_medians[] = {&row.weft_cpu, &row.plain_cpu, &row.pocl_cpu};
  bool* rights[] = {&row.weft_right, &row.plain_right, &row.pocl_right};
  std::vector<float> result(p.output_count);
  for (int s = 0; s < 3; ++s) {
    if (!sides[s]) continue;
    *medians[s] = median(times[s]);
    *cpu_medians[s] = median(cpu_times[s]);
    std::fill(result.begin(), result.end(), -12345.0f);
    sides[s]->read_result(result.data());
    std::string why = "the run failed";
    *rights[s] = sides[s]->healthy() && matches_reference(p, result.data(), why);
    if (!*rights[s]) std::printf("WRONG: %s, %s: %s\n", p.title.c_str(), implementation_names[s], why.c_str());
  }
  return row;
}

std::string machine_description() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

// The 1-minute load average when the run ends, for the charts: on a shared
// machine it says how far to trust them.
std::string load_now() {
  std::ifstream in("/proc/loadavg");
  std::string one_minute;
  in >> one_minute;
  return one_minute.empty() ? "" : ", load average " + one_minute + " at the end";
}

std::string today() {
  std::time_t now = std::time(nullptr);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

std::vector<kernel_kind> chosen_kernels(const suite_options& o) {
  if (!o.kernels.empty()) return o.kernels;
  return {std::begin(all_kernels), std::end(all_kernels)};
}

// Every row of one process: weft's workers as they are, the plain loop and
// PoCL on as many threads.
std::vector<suite_row> run_rows(const suite_options& o, std::string& pocl, double& build_seconds) {
  unsigned workers = weft_workers();
  opencl_status status;
  std::shared_ptr<opencl_session> opencl = open_opencl(workers, status);
  pocl = status.description;
  build_seconds = status.build_seconds;
  std::vector<suite_row> rows;
  for (kernel_kind kind : chosen_kernels(o)) {
    problem p = make_problem(kind, o.quick);
    rows.push_back(measure(p, workers, opencl, o.repeat));
    if (!opencl) rows.back().pocl_absence = status.absence;
    if (o.rows_only) {
      const suite_row& r = rows.back();
      std::printf("suite-row\t%d\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%.9g\t%d%d%d\t%s\n", int(kind), r.weft, r.plain, r.pocl,
                  r.weft_cpu, r.plain_cpu, r.pocl_cpu, r.weft_right, r.plain_right, r.pocl_right, r.title.c_str());
      std::fflush(stdout);
    }
  }
  return rows;
}

bool all_right(const std::vector<suite_row>& rows) {
  return std::all_of(rows.begin(), rows.end(),
                     [](const suite_row& r) { return r.weft_right && r.plain_right && r.pocl_right; });
}

std::string kernel_list(const suite_options& o) {
  std::string list;
  for (kernel_kind kind : chosen_kernels(o)) list += (list.empty() ? "" : ",") + std::string(short_name(kind));
  return list;
}

// One child process of a sweep: the given kernels at one worker count, in a
// process of its own since PoCL reads its thread count once, when it starts.
// False if the child failed or printed fewer rows than it was asked for.
bool run_sweep_child(const char* self, const suite_options& o, unsigned workers, const std::string& kernels,
                     std::size_t expected_rows, std::vector<suite_row>& rows) {
  std::string command = "WEFT_WORKERS=" + std::to_string(workers) +
                        " POCL_MAX_PTHREAD_COUNT=" + std::to_string(workers) + " '" + self +
                        "' suite --suite-rows --repeat " + std::to_string(o.repeat) + (o.quick ? " --quick" : "") +
                        " --kernels " + kernels;
  std::FILE* child = popen(command.c_str(), "r");
  if (!child) return false;
  std::size_t before = rows.size();
  char line[1024];
  while (std::fgets(line, sizeof line, child)) {
    if (std::strncmp(line, "suite-row\t", 10) != 0) continue;
    suite_row r;
    int kind = 0;
    char rights[4] = {}, title[512] = {};
    if (std::sscanf(line, "suite-row\t%d\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf\t%3s\t%511[^\n]", &kind, &r.weft, &r.plain,
                    &r.pocl, &r.weft_cpu, &r.plain_cpu, &r.pocl_cpu, rights, title) != 9)
      continue;
    r.kind = static_cast<kernel_kind>(kind);
    r.title = title;
    r.weft_right = rights[0] == '1', r.plain_right = rights[1] == '1', r.pocl_right = rights[2] == '1';
    rows.push_back(r);
  }
  return pclose(child) == 0 && rows.size() - before == expected_rows;
}

// A kernel's row at one worker count over the rounds: the median of each
// time, and right only if every round was.
suite_row median_row(const std::vector<suite_row>& rounds) {
  suite_row m = rounds.front();
  double suite_row::*fields[] = {&suite_row::weft,     &suite_row::plain,     &suite_row::pocl,
                                 &suite_row::weft_cpu, &suite_row::plain_cpu, &suite_row::pocl_cpu};
  for (double suite_row::*field : fields) {
    std::vector<double> values;
    for (const suite_row& r : rounds) values.push_back(r.*field);
    m.*field = median(values);
  }
  for (const suite_row& r : rounds) {
    m.weft_right &= r.weft_right;
    m.plain_right &= r.plain_right;
    m.pocl_right &= r.pocl_right;
  }
  return m;
}

// With one round, each worker count runs the chosen kernels in one child.
// With several, every kernel gets its own children, its worker counts run
// back to back (in the opposite order every other round), so that each
// speed-up divides two times measured a few seconds apart: on a shared
// machine the 1-worker time drifts by up to 1.5x between sweeps minutes
// apart (turbo, neighbours), which decides whether a kernel near 12x meets
// it. The table then gives the median of those paired speed-ups.
bool run_sweep(const suite_options& o) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof self - 1) <= 0) return false;
  const std::vector<kernel_kind> kernels = chosen_kernels(o);
  // rounds_at[w][k]: kernel k's rows at sweep point w, one per round.
  std::vector<std::vector<std::vector<suite_row>>> rounds_at(o.sweep.size(),
                                                             std::vector<std::vector<suite_row>>(kernels.size()));
  bool ok = true;
  for (int round = 0; round < o.sweep_rounds; ++round) {
    if (o.sweep_rounds == 1) {
      for (std::size_t w = 0; w < o.sweep.size(); ++w) {
        std::printf("workers-sweep: %u workers...\n", o.sweep[w]);
        std::fflush(stdout);
        std::vector<suite_row> rows;
        ok &= run_sweep_child(self, o, o.sweep[w], kernel_list(o), kernels.size(), rows);
        for (std::size_t k = 0; k < rows.size() && k < kernels.size(); ++k) rounds_at[w][k].push_back(rows[k]);
      }
      continue;
    }
    for (std::size_t k = 0; k < kernels.size(); ++k)
      for (std::size_t step = 0; step < o.sweep.size(); ++step) {
        std::size_t w = round % 2 ? o.sweep.size() - 1 - step : step;
        std::printf("workers-sweep: round %d of %d, %s, %u workers...\n", round + 1, o.sweep_rounds,
                    short_name(kernels[k]), o.sweep[w]);
        std::fflush(stdout);
        std::vector<suite_row> rows;
        ok &= run_sweep_child(self, o, o.sweep[w], short_name(kernels[k]), 1, rows);
        if (!rows.empty()) rounds_at[w][k].push_back(rows.front());
      }
  }
  std::vector<worker_count_rows> sweep;
  for (std::size_t w = 0; w < o.sweep.size(); ++w) {
    worker_count_rows point{o.sweep[w], {}};
    for (const std::vector<suite_row>& rounds : rounds_at[w])
      if (!rounds.empty()) point.rows.push_back(median_row(rounds));
    ok &= point.rows.size() == kernels.size() && all_right(point.rows);
    sweep.push_back(std::move(point));
  }
  print_scaling_table(sweep);
  if (o.sweep_rounds > 1) print_paired_speedups(o.sweep, rounds_at);
  if (!o.scaling_svg_path.empty()) {
    std::string subtitle = today() + ", " + machine_description() + ", medians of " + std::to_string(o.repeat) +
                           " runs" +
                           (o.sweep_rounds > 1 ? " in each of " + std::to_string(o.sweep_rounds) + " rounds" : "") +
                           (o.quick ? ", --quick sizes" : "") + load_now();
    if (write_scaling_svg(o.scaling_svg_path, sweep, subtitle))
      std::printf("wrote %s\n", o.scaling_svg_path.c_str());
    else
      ok = false;
  }
  return ok;
}

bool parse_list(const char* text, std::vector<std::string>& items) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) items.push_back(item);
  return !items.empty();
}

}  // namespace

bool parse_suite_argument(int& i, int argc, char** argv, suite_options& o) {
  std::string a = argv[i];
  bool has_value = i + 1 < argc;
  if (a == "--suite-rows") {
    o.rows_only = true;
    return true;
  }
  if (!has_value) return false;
  if (a == "--svg") {
    o.svg_path = argv[++i];
  } else if (a == "--scaling-svg") {
    o.scaling_svg_path = argv[++i];
  } else if (a == "--workers-sweep") {
    std::vector<std::string> items;
    if (!parse_list(argv[++i], items)) return false;
    for (const std::string& item : items) {
      int workers = std::atoi(item.c_str());
      if (workers < 1) return false;
      o.sweep.push_back(unsigned(workers));
    }
  } else if (a == "--sweep-rounds") {
    o.sweep_rounds = std::atoi(argv[++i]);
    if (o.sweep_rounds < 1) return false;
  } else if (a == "--kernels") {
    std::vector<std::string> items;
    if (!parse_list(argv[++i], items)) return false;
    for (const std::string& item : items) {
      auto found = std::find_if(std::begin(all_kernels), std::end(all_kernels),
                                [&](kernel_kind kind) { return item == short_name(kind); });
      if (found == std::end(all_kernels)) return false;
      o.kernels.push_back(*found);
    }
  } else {
    return false;
  }
  return true;
}

const char* suite_usage() {
  return "  suite options:\n"
         "  --kernels a,b     only these of vecadd,saxpy,stencil,transpose,matmul,reduce,shfl_reduce,cg_reduce,\n"
         "                    scan,shfl_scan,histogram,nbody\n"
         "  --svg FILE        write the suite's ratios as an SVG bar chart\n"
         "  --workers-sweep 1,2,4,8,16   run the suite at each worker count (a child process each, with\n"
         "                    WEFT_WORKERS and POCL_MAX_PTHREAD_COUNT set) instead of once\n"
         "  --sweep-rounds N  with --workers-sweep: N rounds, each kernel's worker counts run back to back\n"
         "                    in children of their own; the speed-ups are the medians of each round's\n"
         "  --scaling-svg FILE  with --workers-sweep: write the speed-ups as an SVG\n";
}

bool run_suite(const suite_options& o) {
  if (!o.sweep.empty() && !o.rows_only) return run_sweep(o);
  std::string pocl;
  double build_seconds = 0;
  std::vector<suite_row> rows = run_rows(o, pocl, build_seconds);
  if (o.rows_only) return all_right(rows);
  print_suite_table(rows, pocl);
  if (build_seconds > 0)
    std::printf("PoCL's clBuildProgram of all kernels: %.0f ms (not in the times)\n", build_seconds * 1e3);
  std::printf(
      "checks: integer kernels exact; float kernels within a bound of rounding error against a double "
      "reference (see docs/performance.md)\n");
  bool ok = all_right(rows);
  if (!o.svg_path.empty()) {
    std::string subtitle = today() + ", " + machine_description() + ", " + std::to_string(weft_workers()) +
                           " workers, medians of " + std::to_string(o.repeat) + " runs" +
                           (o.quick ? ", --quick sizes" : "") + load_now();
    if (write_ratio_svg(o.svg_path, rows, subtitle))
      std::printf("wrote %s\n", o.svg_path.c_str());
    else
      ok = false;
  }
  return ok;
}

}  // namespace weft_bench::suite
