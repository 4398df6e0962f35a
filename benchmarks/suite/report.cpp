#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace weft_bench::suite {
namespace {

std::string milliseconds(double seconds, bool right, const std::string& absence = "-") {
  if (seconds == not_run) return absence;
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%s", seconds * 1e3, right ? "" : " WRONG");
  return text;
}

std::string ratio_text(double numerator, double denominator) {
  if (numerator == not_run || denominator == not_run) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", numerator / denominator);
  return text;
}

// Text inside SVG: the titles hold no markup characters but '<' could come
// from a kernel's name one day.
std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

constexpr const char* weft_colour = "#3a6fb0";
constexpr const char* plain_colour = "#8c8c8c";
constexpr const char* pocl_colour = "#e07b28";

}  // namespace

const char* implementation_note(kernel_kind kind) {
  switch (kind) {
    case kernel_kind::warp_reduce:
      return "PoCL: no sub-groups, the 5 shuffle steps through local memory with barriers";
    case kernel_kind::cg_reduce:
      return "PoCL: the warp_reduce kernel (no sub-groups)";
    case kernel_kind::scan_shuffle:
      return "PoCL: no sub-groups, the 5 shuffle steps through local memory with barriers";
    case kernel_kind::matmul:
      return "plain: rows of C by 16-wide strips of A, vectorised inner loop";
    case kernel_kind::histogram:
      return "plain: a private histogram per thread";
    default:
      return "";
  }
}

void print_suite_table(const std::vector<suite_row>& rows, const std::string& pocl) {
  std::printf("\nsuite: medians in ms; weft/plain and weft/PoCL are time ratios (below 1: weft is faster)\n");
  std::printf("PoCL: %s\n", pocl.c_str());
  std::printf("CPU: the same ratios of the CPU time the process used (all threads) during the runs\n");
  std::printf("%-52s %10s %10s %10s %10s %10s %10s %10s\n", "kernel", "weft", "plain", "PoCL", "weft/plain",
              "weft/PoCL", "CPU w/pl", "CPU w/PoCL");
  for (const suite_row& r : rows) {
    std::printf("%-52s %10s %10s %10s %10s %10s %10s %10s\n", r.title.c_str(),
                milliseconds(r.weft, r.weft_right).c_str(), milliseconds(r.plain, r.plain_right).c_str(),
                milliseconds(r.pocl, r.pocl_right, r.pocl_absence).c_str(), ratio_text(r.weft, r.plain).c_str(),
                ratio_text(r.weft, r.pocl).c_str(), ratio_text(r.weft_cpu, r.plain_cpu).c_str(),
                ratio_text(r.weft_cpu, r.pocl_cpu).c_str());
  }
  bool any_note = false;
  for (const suite_row& r : rows) {
    const char* note = implementation_note(r.kind);
    if (!*note) continue;
    if (!any_note) std::printf("notes:\n");
    any_note = true;
    std::printf("  %s: %s\n", short_name(r.kind), note);
  }
}

bool write_ratio_svg(const std::string& path, const std::vector<suite_row>& rows, const std::string& subtitle) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const double low = 1.0 / 16, high = 512;  // the axis, log scale
  const int left = 330, plot = 560, right = 110, top = 70, row_height = 34, bar = 12;
  const int width = left + plot + right, height = top + int(rows.size()) * row_height + 50;
  auto x_of = [&](double ratio) {
    double clipped = std::clamp(ratio, low, high);
    return left + plot * (std::log2(clipped) - std::log2(low)) / (std::log2(high) - std::log2(low));
  };
  std::fprintf(f,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
               width, height);
  std::fprintf(f,
               "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">weft's time / the other's, per kernel "
               "(log scale; below 1: weft is faster)</text>\n");
  std::fprintf(f, "<text x=\"10\" y=\"40\" fill=\"#555\">%s</text>\n", escaped(subtitle).c_str());
  std::fprintf(f,
               "<rect x=\"%d\" y=\"48\" width=\"12\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"57\">weft / plain "
               "loop</text>\n",
               left, plain_colour, left + 16);
  std::fprintf(f,
               "<rect x=\"%d\" y=\"48\" width=\"12\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"57\">weft / "
               "OpenCL on PoCL</text>\n",
               left + 140, pocl_colour, left + 156);
  for (double tick = low; tick <= high * 1.001; tick *= 2) {
    double x = x_of(tick);
    bool one = std::fabs(tick - 1) < 1e-9;
    std::fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"%d\"/>\n", x,
                 top - 4, x, top + int(rows.size()) * row_height, one ? "#000" : "#ddd", one ? 2 : 1);
    char label[16];
    if (tick < 1)
      std::snprintf(label, sizeof label, "1/%gx", 1 / tick);
    else
      std::snprintf(label, sizeof label, "%gx", tick);
    std::fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n", x,
                 top + int(rows.size()) * row_height + 16, label);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const suite_row& r = rows[i];
    int y = top + int(i) * row_height;
    std::fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 8, y + bar + 4,
                 escaped(r.title).c_str());
    auto draw = [&](double other, const char* colour, int offset, bool right) {
      if (r.weft == not_run || other == not_run) {
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#888\">%s</text>\n", left + 4, y + offset + bar - 2,
                     escaped(other == not_run ? r.pocl_absence : std::string("not run")).c_str());
        return;
      }
      double ratio = r.weft / other, x0 = x_of(1), x1 = x_of(ratio);
      std::fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", std::min(x0, x1),
                   y + offset, std::fabs(x1 - x0), bar, colour);
      bool clipped = ratio < low || ratio > high;
      std::fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"%s\">%.2fx%s%s</text>\n",
                   x1 + (ratio >= 1 ? 4 : -4), y + offset + bar - 2, ratio >= 1 ? "start" : "end", ratio,
                   clipped ? " (clipped)" : "", right && r.weft_right ? "" : " WRONG");
    };
    draw(r.plain, plain_colour, 2, r.plain_right);
    draw(r.pocl, pocl_colour, 2 + bar + 2, r.pocl_right);
  }
  std::fprintf(f, "</svg>\n");
  return std::fclose(f) == 0;
}

void print_scaling_table(const std::vector<worker_count_rows>& sweep) {
  if (sweep.empty()) return;
  std::printf(
      "\nscaling: medians in ms at each worker count (weft's SM workers = plain threads = "
      "POCL_MAX_PTHREAD_COUNT); speed-up over the first count in brackets\n");
  std::printf("%-52s %8s %18s %18s %18s\n", "kernel", "workers", "weft", "plain", "PoCL");
  const std::vector<suite_row>& base = sweep.front().rows;
  for (std::size_t k = 0; k < base.size(); ++k) {
    for (const worker_count_rows& point : sweep) {
      if (k >= point.rows.size()) continue;
      const suite_row& r = point.rows[k];
      auto cell = [](double t, double t0, bool right) {
        if (t == not_run) return std::string("-");
        char text[48];
        std::snprintf(text, sizeof text, "%.2f (%.1fx)%s", t * 1e3, t0 == not_run ? 0.0 : t0 / t, right ? "" : "!");
        return std::string(text);
      };
      std::printf("%-52s %8u %18s %18s %18s\n", point.workers == sweep.front().workers ? r.title.c_str() : "",
                  point.workers, cell(r.weft, base[k].weft, r.weft_right).c_str(),
                  cell(r.plain, base[k].plain, r.plain_right).c_str(),
                  cell(r.pocl, base[k].pocl, r.pocl_right).c_str());
    }
  }
}

double median(std::vector<double> v) {
  if (v.empty()) return not_run;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void print_paired_speedups(const std::vector<unsigned>& workers,
                           const std::vector<std::vector<std::vector<suite_row>>>& rounds_at) {
  if (workers.size() < 2) return;
  std::printf("\npaired speed-ups over %u worker%s: each round's own ratio, median [lowest - highest] of %zu rounds\n",
              workers.front(), workers.front() == 1 ? "" : "s",
              rounds_at.front().empty() ? 0 : rounds_at.front()[0].size());
  std::printf("%-52s %8s %22s %22s %22s\n", "kernel", "workers", "weft", "plain", "PoCL");
  const std::vector<std::vector<suite_row>>& base = rounds_at.front();
  for (std::size_t k = 0; k < base.size(); ++k)
    for (std::size_t w = 1; w < workers.size(); ++w) {
      auto cell = [&](double suite_row::*time) {
        std::vector<double> ratios;
        for (std::size_t r = 0; r < base[k].size() && r < rounds_at[w][k].size(); ++r)
          if (base[k][r].*time != not_run && rounds_at[w][k][r].*time > 0)
            ratios.push_back(base[k][r].*time / (rounds_at[w][k][r].*time));
        if (ratios.empty()) return std::string("-");
        char text[64];
        std::snprintf(text, sizeof text, "%.1fx [%.1f - %.1f]", median(ratios),
                      *std::min_element(ratios.begin(), ratios.end()), *std::max_element(ratios.begin(), ratios.end()));
        return std::string(text);
      };
      std::printf("%-52s %8u %22s %22s %22s\n", w == 1 && !base[k].empty() ? base[k].front().title.c_str() : "",
                  workers[w], cell(&suite_row::weft).c_str(), cell(&suite_row::plain).c_str(),
                  cell(&suite_row::pocl).c_str());
    }
}

bool write_scaling_svg(const std::string& path, const std::vector<worker_count_rows>& sweep,
                       const std::string& subtitle) {
  if (sweep.empty()) return false;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const std::vector<suite_row>& base = sweep.front().rows;
  const int columns = 4, panel_w = 240, panel_h = 190, top = 70, margin = 40;
  const int rows = (int(base.size()) + columns - 1) / columns;
  const int width = columns * panel_w + 20, height = top + rows * panel_h + 10;
  double first = sweep.front().workers, last = sweep.back().workers;
  double ideal = last / first;
  std::fprintf(f,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
               width, height);
  std::fprintf(f,
               "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Speed-up over %g worker%s, per "
               "kernel (dashed: ideal)</text>\n",
               first, first == 1 ? "" : "s");
  std::fprintf(f, "<text x=\"10\" y=\"40\" fill=\"#555\">%s</text>\n", escaped(subtitle).c_str());
  const char* names[] = {"weft", "plain loop", "OpenCL on PoCL"};
  const char* colours[] = {weft_colour, plain_colour, pocl_colour};
  for (int s = 0; s < 3; ++s)
    std::fprintf(f,
                 "<rect x=\"%d\" y=\"48\" width=\"12\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"57\">%s</text>\n",
                 10 + 150 * s, colours[s], 26 + 150 * s, names[s]);
  for (std::size_t k = 0; k < base.size(); ++k) {
    int px = 10 + int(k % columns) * panel_w, py = top + int(k / columns) * panel_h;
    int x0 = px + margin, x1 = px + panel_w - 15, y0 = py + panel_h - 35, y1 = py + 22;
    auto x_of = [&](double workers) {
      return last == first ? x0 : x0 + (x1 - x0) * std::log2(workers / first) / std::log2(last / first);
    };
    // Up to a quarter above the ideal, so that superlinear scaling shows; clipped there.
    const double top_speedup = ideal * 1.25;
    auto y_of = [&](double speedup) { return y0 - (y0 - y1) * std::min(speedup, top_speedup) / top_speedup; };
    std::string name = base[k].title.substr(0, base[k].title.find(','));
    std::fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", px + 4, py + 12, escaped(name).c_str());
    double last_label_y = 1e9;
    for (const worker_count_rows& point : sweep) {
      double level = point.workers / first;
      bool room = last_label_y - y_of(level) >= 10;  // labels of close levels would overlap
      std::fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>\n", x0, y_of(level), x1,
                   y_of(level));
      if (!room) continue;
      last_label_y = y_of(level);
      std::fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\" font-size=\"9\">%gx</text>\n",
                   x0 - 3, y_of(level) + 3, level);
    }
    std::fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#ccc\"/>\n", x0, y1,
                 x1 - x0, y0 - y1);
    std::fprintf(f,
                 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#aaa\" stroke-dasharray=\"4 3\"/>\n",
                 x_of(first), y_of(1), x_of(last), y_of(ideal));
    for (const worker_count_rows& point : sweep)
      std::fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%u</text>\n", x_of(point.workers),
                   y0 + 13, point.workers);
    std::fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">workers</text>\n", (x0 + x1) / 2,
                 y0 + 26);
    for (int s = 0; s < 3; ++s) {
      auto time_of = [&](const suite_row& r) { return s == 0 ? r.weft : s == 1 ? r.plain : r.pocl; };
      double t0 = time_of(base[k]);
      if (t0 == not_run) continue;
      std::fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colours[s]);
      for (const worker_count_rows& point : sweep)
        if (k < point.rows.size() && time_of(point.rows[k]) != not_run)
          std::fprintf(f, "%.1f,%.1f ", x_of(point.workers), y_of(t0 / time_of(point.rows[k])));
      std::fprintf(f, "\"/>\n");
    }
  }
  std::fprintf(f, "</svg>\n");
  return std::fclose(f) == 0;
}

}  // namespace weft_bench::suite
