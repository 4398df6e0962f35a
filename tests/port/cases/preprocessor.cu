// Preprocessor lines are kept whole except #define bodies, which are code.
#include <cstdio>   /* a comment
                       over two lines <<< */
#include <cstddef> // k<<<1, 1>>>()
#pragma GCC diagnostic warning "-Wunused" // <<<
#if defined(A) && \
    (B << 2) > 1
#endif
#define EMPTY
#define ONE_LINE(k) k<<<1, 1>>>()  // comment k<<<2, 2>>>() \
   still the comment
#define NEXT 1
  #  define INDENTED(k) k<<<1, 1>>>()
__global__ void k() {}
void f() { ONE_LINE(k); INDENTED(k); k<<<NEXT, 1>>>(); }
