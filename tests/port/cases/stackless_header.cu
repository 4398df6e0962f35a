// Kernels defined in headers that only this .cu includes convert as its own
// do, where no other source names them (stackless_header.cuh); a header that
// another source of the program includes too keeps its kernels on fibers
// (stackless_header_shared.cuh, included by stackless_header_other.cpp).
// The case runs with --explain --program-source stackless_header_other.cpp.
#include "stackless_header.cuh"
#include "stackless_header_shared.cuh"

void launch_all(float* data, int* values) {
  reverse_rows(data, 64, 12);
  launched_from_the_cu<<<1, 32>>>(values);
  launch_helper_waiter(values);
  launch_shared(values);
}
