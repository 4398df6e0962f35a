// A host-only source: compiled as it is, as the host compiler compiles it
// under nvcc, so __CUDACC__ is not defined.
#include <cuda_runtime.h>

int host_side_value() {
#ifdef __CUDACC__
  return 1;
#else
  return 0;
#endif
}
