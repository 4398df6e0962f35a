// Strings, chars, raw strings and comments that contain launch syntax,
// commas or parentheses, in and around launches.
#include <cstdio>

__global__ void show(const char* s, char c, int n) {}
__global__ void wide(const wchar_t* s, char16_t c, int n) {}

void literals(int n) {
  show<<<1, 1>>>("<<<not a launch>>>(x)", '>', n);
  show<<<1, 1>>>(", ) (", ')', n);
  show<<<1, 1>>>("\"<<<\" \\", '\'', n);
  show<<<1, 1>>>(R"(<<<)" ">>>)", '(', n);
  show<<<1, 1>>>(R"delim(a )" b >>> c)delim", ',', n);
  wide<<<1, 1>>>(L"<<<", u'>', n);
  show<<</* grid */ 1, /* block >>> */ 32 /* , 64 */>>>("", 'x', n);
  show /* kernel */ <<<1, 1>>> /* arguments follow */ ("", 'x', n);
  show<<<1, 1>>>("a", 'b', n);  // show<<<2, 2>>>("commented out", 'c', n);
  /* show<<<3, 3>>>("commented out", 'd', n); */
  std::printf("k<<<%d, %d>>>(...)\n", 1, 2);
  const char* text = "k<<<1, 1>>>()";
  const char* raw = R"x(
    k<<<1, 1>>>();
  )x";
  int thousands = 1'000'000;
  show<<<1'000, 0x1p+3>>>("", '\\', thousands);
}
