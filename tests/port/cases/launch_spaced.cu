// Every launch spelling nvcc accepts: clang-format's spaces inside the
// chevrons, chevrons and arguments over several lines, comments anywhere,
// template kernels whose arguments end in `>>`, and launches in macros.
#include <utility>

template <class T> struct box { T value; };
template <class T> __global__ void fill(T* p) {}
__global__ void plain(int* p, int n) {}

#define LAUNCH_SPACED(k, p) k << < 1, 32 >> > (p)

void spellings(int* p, box<box<int>>* boxes) {
  plain << < 1, 32 >> > (p, 4);
  plain << <1, 32>> >(p, 4);
  plain<<<1, 32>>>(p, 4);
  plain <<<
      1,  // grid
      32  /* block */
  >>>
  (p,
   4);
  plain /* kernel */ << < /* grid */ 1, /* block */ 32 >> > /* arguments */ (p, /* n */ 4);
  fill<box<box<int>>><<<1, 32>>>(boxes);
  fill<box<box<int>>> << < 1, 32 >> > (boxes);
  fill<std::pair<int, box<int>>><<<1, 1>>>(nullptr);
  LAUNCH_SPACED(fill<int>, p);
}
