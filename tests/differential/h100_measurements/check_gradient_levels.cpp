// Counts the measured gradient fetches whose level weft's rule gives bit for
// bit (issue 15): gradients.txt and gradients_anisotropy.txt (tex2DGrad), gradients3d.txt and
// gradients3d_anisotropy.txt (tex3DGrad and
// texCubemapGrad), cubemap_gradients.txt and gradient_lengths.txt. Each
// measured mipmap's level l holds l, point filtering within levels and
// linear between them, so a result is the level the texture unit took, in
// 256ths, after the clamps and the sharpened blend of maxAnisotropy.
// and gradient_rules.txt (measure_gradient_rules.cu's sweeps, whose queries
// are made again here as that program makes them), gradient_rules2.txt,
// gradient_rules3.txt and minor_axis.txt.
//   g++ -std=c++20 -O1 -Iinclude tests/differential/h100_measurements/check_gradient_levels.cpp -o /tmp/check
//   /tmp/check tests/differential/h100_measurements [-v]
#include <weft/detail/textures/sampling/cubemap_gradient_level.hpp>
#include <weft/detail/textures/sampling/gradient_level.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace weft::detail::textures;

/// What a fetch returns, in 256ths, for a level of detail in 256ths:
/// clamped to [0, last], its fraction sharpened when maxAnisotropy is above 1.
int fetched_level(int level, unsigned max_anisotropy, int last) {
  if (level < 0) level = 0;
  if (level >= last * 256) return last * 256;
  int whole = level / 256, fraction = level % 256;
  return whole * 256 + sharpened_level_fraction(fraction, max_anisotropy);
}

int measured_level(const std::string& hex) {
  return static_cast<int>(std::lround(std::strtod(hex.c_str(), nullptr) * 256));
}

float hex_float(const std::string& hex) { return std::strtof(hex.c_str(), nullptr); }

struct tally {
  std::map<std::string, std::pair<int, int>> by_group;  // group: (matching, all)
  void add(const std::string& group, bool match) {
    auto& t = by_group[group];
    t.first += match;
    t.second += 1;
  }
  void print(const char* file) const {
    int match = 0, all = 0;
    for (auto& [group, t] : by_group) {
      std::printf("%s %s: %d of %d\n", file, group.c_str(), t.first, t.second);
      match += t.first;
      all += t.second;
    }
    std::printf("%s: %d of %d\n", file, match, all);
  }
};

bool verbose = false;

void report(const std::string& line, int measured, int computed) {
  if (verbose && measured != computed)
    std::printf("  miss %+d: %s (weft %d)\n", measured - computed, line.c_str(), computed);
}

void check_2d(const std::string& dir, const char* file) {
  std::ifstream in(dir + "/" + file);
  std::string line;
  tally t;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, a, dx0, dx1, dy0, dy1, value;
    if (!(words >> kind >> a >> dx0 >> dx1 >> dy0 >> dy1 >> value) || kind != "G") continue;
    unsigned aniso = std::stoul(a);
    const float dx[2] = {hex_float(dx0) * 1024, hex_float(dx1) * 1024},
                dy[2] = {hex_float(dy0) * 1024, hex_float(dy1) * 1024};
    int computed = fetched_level(level_from_footprint(dx, dy, aniso), aniso, 10), measured = measured_level(value);
    report(line, measured, computed);
    t.add("maxAnisotropy " + a, computed == measured);
  }
  t.print(file);
}

void check_lengths(const std::string& dir) {
  std::ifstream in(dir + "/gradient_lengths.txt");
  std::string line;
  // Only the first query of each sweep and each change are printed: the
  // queries in between take the level printed last.
  struct printed {
    char part;
    double a, b;
    int level;
  };
  std::vector<printed> lines;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, part, a, b, value;
    if (!(words >> kind >> part >> a >> b >> value) || kind != "S") continue;
    lines.push_back({part[0], std::strtod(a.c_str(), nullptr), std::strtod(b.c_str(), nullptr), measured_level(value)});
  }
  struct query {
    char part;
    float a, b;
  };
  std::vector<query> queries;
  for (float a : {1.0f, 1.5f, 1.2890625f, 1.90625f, 6.0f})
    for (int i = 0; i <= 8192; ++i) queries.push_back({'B', a, a * i / 8192});
  for (float b : {0.375f, 0.7109375f, 0.123046875f})
    for (int i = 0; i <= 4096; ++i) queries.push_back({'A', 1.0f + i / 4096.0f, b});
  tally t;
  std::size_t next = 0;
  int level = 0;
  for (const query& q : queries) {
    if (next < lines.size() && lines[next].part == q.part && lines[next].a == q.a && lines[next].b == q.b)
      level = lines[next++].level;
    const float dx[2] = {q.a, q.b}, dy[2] = {0, 0};
    int computed = fetched_level(level_from_footprint(dx, dy, 0), 0, 10);
    if (verbose && computed != level)
      std::printf("  miss %+d: %c %a %a (weft %d)\n", level - computed, q.part, q.a, q.b, computed);
    t.add(std::string("part ") + q.part, computed == level);
  }
  if (next != lines.size()) std::printf("gradient_lengths.txt: %zu of %zu lines placed\n", next, lines.size());
  t.print("gradient_lengths.txt");
}

/// The cubemap rule (cubemap_gradient_level.hpp) on faces of `side` texels.
int cubemap_level(const float (&direction)[3], const float (&dx)[3], const float (&dy)[3], double side,
                  unsigned aniso) {
  const double d[3] = {direction[0], direction[1], direction[2]}, gx[3] = {dx[0], dx[1], dx[2]},
               gy[3] = {dy[0], dy[1], dy[2]};
  return cubemap_level_from_footprint(d, gx, gy, side, aniso);
}

void check_3d(const std::string& dir, const char* file) {
  std::ifstream in(dir + "/" + file);
  std::string line;
  tally t;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, a, x, y, z, dxw, dx0, dx1, dx2, dyw, dy0, dy1, dy2, eq, value;
    if (!(words >> kind >> a >> x >> y >> z >> dxw >> dx0 >> dx1 >> dx2 >> dyw >> dy0 >> dy1 >> dy2 >> eq >> value))
      continue;
    unsigned aniso = std::stoul(a);
    const float direction[3] = {hex_float(x), hex_float(y), hex_float(z)};
    int computed, measured = measured_level(value);
    if (kind == "3") {
      const float dx[3] = {hex_float(dx0) * 256, hex_float(dx1) * 256, hex_float(dx2) * 256};
      const float dy[3] = {hex_float(dy0) * 256, hex_float(dy1) * 256, hex_float(dy2) * 256};
      computed = fetched_level(level_from_footprint(dx, dy), aniso, 8);
    } else {
      const float dx[3] = {hex_float(dx0), hex_float(dx1), hex_float(dx2)};
      const float dy[3] = {hex_float(dy0), hex_float(dy1), hex_float(dy2)};
      computed = fetched_level(cubemap_level(direction, dx, dy, 256, aniso), aniso, 8);
    }
    report(line, measured, computed);
    t.add((kind == "3" ? "tex3DGrad maxAnisotropy " : "texCubemapGrad maxAnisotropy ") + a, computed == measured);
  }
  t.print(file);
}

/// A query of measure_gradient_rules.cu: direction (cubemaps) and gradients,
/// as that program passes them (normalized coordinates).
struct rule_query {
  int sweep, index;
  float direction[3], dx[3], dy[3];
};

std::vector<rule_query> diagonal_queries() {
  std::vector<rule_query> s;
  int id = 0;
  const float k = 1.0f / 1024;
  auto add = [&s](int sweep, int i, float dx0, float dx1, float dy0, float dy1) {
    s.push_back({sweep, i, {0, 0, 0}, {dx0, dx1, 0}, {dy0, dy1, 0}});
  };
  for (float a : {1.0f, 1.5f, 1.2890625f, 1.90625f}) {
    for (int i = 0; i <= 8192; ++i) {
      float b = a * i / 8192;
      add(id, i, a * k, b * k, a * k, b * k);
    }
    ++id;
  }
  for (float b : {0.375f, 0.7109375f, 0.123046875f}) {
    for (int i = 0; i <= 4096; ++i) {
      float a = 1.0f + i / 4096.0f;
      add(id, i, a * k, b * k, a * k, b * k);
    }
    ++id;
  }
  for (float b : {0.375f, 0.7109375f}) {
    for (int j = 0; j <= 2048; ++j) {
      float a2 = 1.0f + j / 2048.0f;
      add(id, j, 1.0f * k, b * k, a2 * k, b * k);
    }
    ++id;
  }
  for (int j = 0; j <= 8192; ++j) {
    float b2 = 0.5f * j / 8192;
    add(id, j, 1.0f * k, 0.5f * k, 1.0f * k, b2 * k);
  }
  return s;
}

std::vector<rule_query> volume_queries() {
  std::vector<rule_query> s;
  int id = 0;
  const float k = 1.0f / 256;
  auto add = [&s](int sweep, int i, float dx0, float dx1, float dx2) {
    s.push_back({sweep, i, {0, 0, 0}, {dx0, dx1, dx2}, {0, 0, 0}});
  };
  for (float b : {0.375f, 0.7109375f, 0.5f, 0.90625f, 0.123046875f}) {
    for (int i = 0; i <= 4096; ++i) {
      float c = b * i / 4096;
      add(id, i, k, b * k, c * k);
    }
    ++id;
  }
  for (float c : {0.1f, 0.2f, 0.3f, 0.0625f, 0.123046875f}) {
    for (int i = 0; i <= 4096; ++i) {
      float b = c + (1 - c) * i / 4096;
      add(id, i, k, b * k, c * k);
    }
    ++id;
  }
  for (int i = 0; i <= 64; ++i)
    for (int j = 0; j <= i; ++j) add(id, i * 65 + j, k, i / 64.0f * k, j / 64.0f * k);
  return s;
}

std::vector<rule_query> crossing_queries() {
  struct family {
    float x, y, z, gx, gy, gz, reach;
  };
  const family families[] = {
      {1, 0.5f, 0, 0, 1, 0, 2},     {1, 0.5f, 0, -1, 0, 0, 1.5f},
      {1, 0.5f, 0, 1, 0, 0, 2},     {1, 0, 0, 0, 1, 0, 3},
      {1, 0.5f, 0.25f, 0, 0, 1, 2}, {1, 0.5f, 0, 0, -1, 0, 3},
      {1, 0.25f, 0, 0, 1, 0, 2},    {1, 0.3f, 0.2f, -1, 0.5f, 0, 1.5f},
      {0.5f, 1, 0, 1, 0, 0, 2},     {1, 0.5f, 0, 0, 1, 1, 2},
      {2, 1, 0, 0, 2, 0, 4},        {-1, 0.5f, 0.5f, 0, 0, -1, 2},
  };
  std::vector<rule_query> s;
  int id = 0;
  for (const family& f : families) {
    for (int i = 0; i <= 2048; ++i) {
      float g = f.reach * i / 2048;
      s.push_back({id, i, {f.x, f.y, f.z}, {g * f.gx, g * f.gy, g * f.gz}, {0, 0, 0}});
    }
    ++id;
  }
  return s;
}

void check_rules(const std::string& dir) {
  std::ifstream in(dir + "/gradient_rules.txt");
  std::string line;
  std::map<char, std::map<std::pair<int, int>, int>> printed;  // part -> (sweep, index) -> level
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string part, value, skip;
    int sweep, index;
    if (!(words >> part >> sweep >> index)) continue;
    for (int k = 0; k < 9; ++k) words >> skip;
    words >> value;
    printed[part[0]][{sweep, index}] = measured_level(value);
  }
  auto check = [&](char part, const char* name, const std::vector<rule_query>& queries, auto level_of) {
    tally t;
    const auto& levels = printed[part];
    int level = 0;
    for (const rule_query& q : queries) {
      auto found = levels.find({q.sweep, q.index});
      if (found != levels.end()) level = found->second;
      int computed = level_of(q);
      if (verbose && computed != level)
        std::printf("  miss %+d: %c %d %d (weft %d)\n", level - computed, part, q.sweep, q.index, computed);
      t.add(std::string(name) + " sweep " + (q.sweep < 10 ? "0" : "") + std::to_string(q.sweep), computed == level);
    }
    t.print("gradient_rules.txt");
  };
  check('D', "tex2DGrad", diagonal_queries(), [](const rule_query& q) {
    const float dx[2] = {q.dx[0] * 1024, q.dx[1] * 1024}, dy[2] = {q.dy[0] * 1024, q.dy[1] * 1024};
    return fetched_level(level_from_footprint(dx, dy, 0), 0, 10);
  });
  check('T', "tex3DGrad", volume_queries(), [](const rule_query& q) {
    const float dx[3] = {q.dx[0] * 256, q.dx[1] * 256, q.dx[2] * 256}, dy[3] = {0, 0, 0};
    return fetched_level(level_from_footprint(dx, dy), 0, 8);
  });
  check('C', "texCubemapGrad", crossing_queries(),
        [](const rule_query& q) { return fetched_level(cubemap_level(q.direction, q.dx, q.dy, 256, 0), 0, 8); });
}

/// measure_gradient_rules2.cu's output: E and F/G lines carry their
/// queries; T lines are the four levels of each (m, n) where they change.
void check_rules2(const std::string& dir) {
  std::ifstream in(dir + "/gradient_rules2.txt");
  std::string line;
  tally t;
  std::map<std::pair<int, int>, std::map<int, std::vector<int>>> volume;  // (pass, m) -> n -> levels
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "E" || kind == "F" || kind == "G") {
      std::string how, skip, dx0, dx1, dy0, dy1, value;
      if (kind != "E") words >> how;
      words >> skip;
      if (how == "s") words >> skip;
      words >> dx0 >> dx1 >> dy0 >> dy1 >> value;
      const float dx[2] = {hex_float(dx0) * 1024, hex_float(dx1) * 1024},
                  dy[2] = {hex_float(dy0) * 1024, hex_float(dy1) * 1024};
      unsigned aniso = kind == "E" ? 0 : 16;
      int bias = kind == "G" ? 128 : 0;
      int computed = fetched_level(level_from_footprint(dx, dy, aniso) + bias, aniso, 10);
      int measured = measured_level(value);
      report(line, measured, computed);
      std::string group = kind == "E" ? "E diagonals" : kind + (how == "r" ? " random" : " swept (changes)");
      t.add(group, computed == measured);
    } else if (kind == "T") {
      int pass, m, n;
      std::vector<int> levels(4);
      words >> pass >> m >> n >> levels[0] >> levels[1] >> levels[2] >> levels[3];
      volume[{pass, m}][n] = levels;
    }
  }
  struct pass_shape {
    int e, step;
    double h;
  };
  const pass_shape passes[] = {{0, 4, 0}, {1, 4, 0}, {2, 4, 0}, {1, 16, 0.5}, {3, 16, 0}};
  for (int pass = 0; pass < 5; ++pass) {
    const pass_shape& ps = passes[pass];
    double unit = 1.0 / (512 << ps.e);
    for (int m = 512; m <= 1020; m += ps.step) {
      const auto& printed = volume[{pass, m}];
      std::vector<int> measured;
      double b = m * unit, l0 = ps.e == 0 ? b : 1.0;
      for (int n = 0; n <= m; ++n) {
        auto found = printed.find(n);
        if (found != printed.end()) measured = found->second;
        for (int i = 0; i < 4; ++i) {
          const float k = 1.0f / 256;
          const float dx[3] = {float((l0 + i / 512.0) * k) * 256, float(b * k) * 256,
                               float((n + ps.h) * unit * k) * 256},
                      dy[3] = {0, 0, 0};
          int computed = fetched_level(level_from_footprint(dx, dy), 0, 8);
          int level = measured.empty() ? -1 : measured[i];
          if (verbose && computed != level)
            std::printf("  miss %+d: T %d %d %d %d (weft %d)\n", level - computed, pass, m, n, i, computed);
          t.add("T pass " + std::to_string(pass), computed == level);
        }
      }
    }
  }
  t.print("gradient_rules2.txt");
}

/// measure_gradient_rules3.cu's output: for each (m, n), the eight levels of
/// dx = dy = (L, b, c) texels, L = L0 + i/512; printed where they change.
void check_rules3(const std::string& dir) {
  std::ifstream in(dir + "/gradient_rules3.txt");
  std::string line;
  std::map<std::tuple<char, int, int>, std::map<int, std::vector<int>>> printed;  // (part, pass, m) -> n -> levels
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    int pass, m, n = 0;
    words >> kind;
    if (kind != "D" && kind != "V") continue;
    words >> pass >> m;
    if (kind == "V") words >> n;
    std::vector<int> levels(8);
    for (int& level : levels) words >> level;
    printed[{kind[0], pass, m}][n] = levels;
  }
  tally t;
  auto check = [&](char part, int pass, int e, int step, bool volume) {
    double unit = 1.0 / (512 << e);
    for (int m = 512; m <= 1016; m += step) {
      const auto& sweep = printed[{part, pass, m}];
      std::vector<int> measured;
      double b = m * unit, l0 = e == 0 ? b : 1.0;
      for (int n = 0; n <= (volume ? m : 0); ++n) {
        auto found = sweep.find(n);
        if (found != sweep.end()) measured = found->second;
        for (int i = 0; i < 8; ++i) {
          int computed;
          float big = float(float((l0 + i / 512.0) / (volume ? 256 : 1024)) * (volume ? 256 : 1024));
          float middle = float(float(b / (volume ? 256 : 1024)) * (volume ? 256 : 1024));
          if (volume) {
            float small = float(float(n * unit / 256) * 256);
            const float g[3] = {big, middle, small};
            computed = fetched_level(level_from_footprint(g, g), 0, 8);
          } else {
            const float g[2] = {big, middle};
            computed = fetched_level(level_from_footprint(g, g, 0), 0, 10);
          }
          int level = measured.empty() ? -1 : measured[i];
          if (verbose && computed != level)
            std::printf("  miss %+d: %c %d %d %d %d (weft %d)\n", level - computed, part, pass, m, n, i, computed);
          t.add(std::string(1, part) + " pass " + std::to_string(pass), computed == level);
        }
      }
    }
  };
  for (int e = 0; e < 3; ++e) check('D', e, e, 1, false);
  const int shapes[3][2] = {{0, 8}, {1, 8}, {2, 16}};
  for (int pass = 0; pass < 3; ++pass) check('V', pass, shapes[pass][0], shapes[pass][1], true);
  t.print("gradient_rules3.txt");
}

/// measure_minor_axis.cu's output: axis-aligned footprints dx = (a, 0),
/// dy = (0, b), maxAnisotropy 16, each fetched with mipmapLevelBias 0 and
/// 0.5; a line matches when both values do.
void check_minor_axis(const std::string& dir) {
  std::ifstream in(dir + "/minor_axis.txt");
  std::string line;
  tally t;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string part, fixed, octave, n, s, a, b, value0, value1;
    if (!(words >> part >> fixed >> octave >> n >> s >> a >> b >> value0 >> value1)) continue;
    const float dx[2] = {hex_float(a) * 1024, 0}, dy[2] = {0, hex_float(b) * 1024};
    int level = level_from_footprint(dx, dy, 16);
    int computed0 = fetched_level(level, 16, 10), computed1 = fetched_level(level + 128, 16, 10);
    int measured0 = measured_level(value0), measured1 = measured_level(value1);
    bool match = computed0 == measured0 && computed1 == measured1;
    if (verbose && !match)
      std::printf("  miss %+d %+d: %s (weft %d %d)\n", measured0 - computed0, measured1 - computed1, line.c_str(),
                  computed0, computed1);
    t.add(part + " " + fixed, match);
  }
  t.print("minor_axis.txt");
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "tests/differential/h100_measurements";
  verbose = argc > 2 && std::strcmp(argv[2], "-v") == 0;
  check_lengths(dir);
  check_2d(dir, "gradients.txt");
  check_2d(dir, "gradients_anisotropy.txt");
  check_3d(dir, "gradients3d.txt");
  check_3d(dir, "gradients3d_anisotropy.txt");
  check_3d(dir, "cubemap_gradients.txt");
  check_rules(dir);
  check_rules2(dir);
  check_rules3(dir);
  check_minor_axis(dir);
}
