// Surfaces: a kernel writes an image into a CUDA array through a surface
// object, and later kernels read it back, one through the same surface
// (surf2Dread) and one through a texture object over the same array
// (tex2D). A surface's x coordinate counts bytes, not elements, and a read
// outside the array may return zero instead of failing (cudaBoundaryModeZero).
//
// Writes through a surface are visible to reads in later launches; within
// one launch, a texture fetch of a texel written through a surface is not
// guaranteed to see the write (the texture cache is not kept coherent), so
// each step here is a kernel of its own.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

// The value written to pixel (x, y): an integer, exact in a float.
__host__ __device__ float pattern(int x, int y) { return (float)((x * 7 + y * 13) % 101); }

__global__ void drawPattern(cudaSurfaceObject_t surface, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) surf2Dwrite(pattern(x, y), surface, x * sizeof(float), y);
}

// The horizontal central difference, with zero beyond the left and right
// edges: the boundary mode does the bounds check.
__global__ void differenceAcross(float* out, cudaSurfaceObject_t surface, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float left = surf2Dread<float>(surface, (x - 1) * (int)sizeof(float), y, cudaBoundaryModeZero);
  float right;
  surf2Dread(&right, surface, (x + 1) * (int)sizeof(float), y, cudaBoundaryModeZero);
  out[y * width + x] = right - left;
}

// The same array through a texture: unnormalized coordinates, the centre of
// texel (x, y) at (x + 0.5, y + 0.5), point filtering.
__global__ void copyThroughTexture(float* out, cudaTextureObject_t texture, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(texture, x + 0.5f, y + 0.5f);
}

int main() {
  const int width = 200, height = 75;  // not multiples of the block's size
  const size_t bytes = width * height * sizeof(float);

  // A surface needs an array made with cudaArraySurfaceLoadStore.
  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  cudaError_t err = cudaMallocArray(&array, &channel, width, height, cudaArraySurfaceLoadStore);
  bool ok = err == cudaSuccess;

  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaSurfaceObject_t surface = 0;
  ok = ok && cudaCreateSurfaceObject(&surface, &resource) == cudaSuccess;
  cudaTextureDesc how = {};
  how.addressMode[0] = cudaAddressModeClamp;
  how.addressMode[1] = cudaAddressModeClamp;
  how.filterMode = cudaFilterModePoint;
  how.readMode = cudaReadModeElementType;
  how.normalizedCoords = 0;
  cudaTextureObject_t texture = 0;
  ok = ok && cudaCreateTextureObject(&texture, &resource, &how, nullptr) == cudaSuccess;

  float *d_difference, *d_copy;
  cudaMalloc(&d_difference, bytes);
  cudaMalloc(&d_copy, bytes);
  dim3 block(32, 8);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  drawPattern<<<grid, block>>>(surface, width, height);
  differenceAcross<<<grid, block>>>(d_difference, surface, width, height);
  copyThroughTexture<<<grid, block>>>(d_copy, texture, width, height);

  std::vector<float> fromArray(width * height), difference(width * height), copy(width * height);
  err = cudaMemcpy2DFromArray(fromArray.data(), width * sizeof(float), array, 0, 0, width * sizeof(float), height,
                              cudaMemcpyDeviceToHost);
  ok = ok && err == cudaSuccess;
  ok = ok && cudaMemcpy(difference.data(), d_difference, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
  ok = ok && cudaMemcpy(copy.data(), d_copy, bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
  if (!ok) printf("CUDA error: %s\n", cudaGetErrorString(cudaGetLastError()));

  int wrong = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float left = x > 0 ? pattern(x - 1, y) : 0.0f;
      float right = x + 1 < width ? pattern(x + 1, y) : 0.0f;
      int i = y * width + x;
      if (fromArray[i] != pattern(x, y) || difference[i] != right - left || copy[i] != pattern(x, y)) {
        if (wrong < 5)
          printf("pixel (%d, %d): array %g, difference %g, texture %g; expected %g, %g, %g\n", x, y, fromArray[i],
                 difference[i], copy[i], pattern(x, y), right - left, pattern(x, y));
        ++wrong;
      }
    }
  printf("%dx%d floats written through a surface, read back three ways: %d wrong\n", width, height, wrong);
  ok = ok && wrong == 0;

  cudaDestroyTextureObject(texture);
  cudaDestroySurfaceObject(surface);
  cudaFreeArray(array);
  cudaFree(d_difference);
  cudaFree(d_copy);
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
