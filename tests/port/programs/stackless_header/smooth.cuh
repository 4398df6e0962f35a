// A kernel in a header that only main.cu includes, launched from the header,
// shaped as cuda-samples' HSOpticalFlow writes its Jacobi step: a template
// on the block's shape, volatile shared tiles with a halo, the block's group
// and an early return after the barrier. weft-port makes it stackless.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Each point becomes the mean of its four neighbours, the edges clamped.
template <int bx, int by>
__global__ void smooth_step(const float* in, float* out, int w, int h) {
  cg::thread_block cta = cg::this_thread_block();
  volatile __shared__ float tile[(bx + 2) * (by + 2)];

  const int x = threadIdx.x + blockIdx.x * blockDim.x;
  const int y = threadIdx.y + blockIdx.y * blockDim.y;
  const int here = threadIdx.x + 1 + (threadIdx.y + 1) * (bx + 2);
  tile[here] = in[min(x, w - 1) + min(y, h - 1) * w];

  // The halo: the rows above and below, then the columns left and right.
  const int bsx = blockIdx.x * blockDim.x;
  const int bsy = blockIdx.y * blockDim.y;
  if (threadIdx.y == 0) {
    const int col = min(bsx + (int)threadIdx.x, w - 1);
    tile[threadIdx.x + 1] = in[col + max(bsy - 1, 0) * w];
    tile[threadIdx.x + 1 + (by + 1) * (bx + 2)] = in[col + min(bsy + by, h - 1) * w];
  } else if (threadIdx.y == 1 && threadIdx.x < by) {
    const int row = min(bsy + (int)threadIdx.x, h - 1);
    tile[(threadIdx.x + 1) * (bx + 2)] = in[max(bsx - 1, 0) + row * w];
    tile[(threadIdx.x + 1) * (bx + 2) + bx + 1] = in[min(bsx + bx, w - 1) + row * w];
  }

  cg::sync(cta);

  if (x >= w || y >= h) return;

  out[x + y * w] = (tile[here - 1] + tile[here + 1] + tile[here - bx - 2] + tile[here + bx + 2]) * 0.25f;
}

static void smooth(const float* in, float* out, int w, int h) {
  dim3 threads(32, 6);
  dim3 blocks((w + 31) / 32, (h + 5) / 6);
  smooth_step<32, 6><<<blocks, threads>>>(in, out, w, h);
}
