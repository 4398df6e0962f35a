// Nothing here is a launch or an extern __shared__ array: the port is the
// input itself.
#include <iostream>
#include <map>
#include <vector>
#if (1 << 3) > 4 && defined(__cplusplus)
#define SHIFT(x) ((x) << 2 >> 1)
#endif
#if 0
#error don't stop here <<< >>>
#endif

template <class T> struct Box { T value; };
template <class T> std::ostream& operator<<(std::ostream& os, const Box<T>& b) { return os << b.value; }
template <class T> struct Printer {
  friend std::ostream& operator<<<T>(std::ostream&, const Box<T>&);
};
extern "C" int puts(const char*);
extern "C" {
int legacy(int);
}
extern int table[];
extern template struct Box<int>;

__global__ void k(float* out) {
  __shared__ float tile[32];
  __shared__ int count;
  tile[threadIdx.x] = out[threadIdx.x];
}

int main() {
  std::map<int, std::vector<std::vector<int>>> m;
  Box<Box<int>> b{{1}};
  int x = 1 << 4, y = x >> 2, z = x<<y, w = (x>>1)>>1;
  x <<= 1;
  y >>= 1;
  bool less = x < y, greater = x > y;
  std::cout << "<<<" << x << ">>>" << '<' << '>' << std::endl;
  std::cout << b << (x >> y) << (y << 1) << std::endl;
  return less && greater ? z : w;
}
