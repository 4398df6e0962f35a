// extern __shared__ arrays outside any function: each use reads the running
// block's dynamic shared memory, through the helper the prelude defines.
extern __shared__ float shared_floats[];

namespace app {
extern __shared__ __align__(16) unsigned char shared_bytes[];
namespace inner {
extern __shared__ int shared_ints[][4];
}
}  // namespace app

extern "C" {
extern __shared__ double shared_doubles[];
}

__global__ void use(float* out) {
  extern __shared__ float local[];
  shared_floats[threadIdx.x] = local[threadIdx.x];
  out[0] = *(shared_floats + 1);
}
