// Smooths an image a few times with a kernel of smooth.cuh, against the same
// steps on the host; prints PASS or FAIL.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "smooth.cuh"

int main() {
  const int w = 70, h = 25, steps = 20;  // neither a multiple of the block's 32 x 6
  std::vector<float> image(w * h);
  for (int i = 0; i < w * h; ++i) image[i] = (float)((i * 37) % 101);

  float *a, *b;
  cudaMalloc(&a, w * h * sizeof(float));
  cudaMalloc(&b, w * h * sizeof(float));
  cudaMemcpy(a, image.data(), w * h * sizeof(float), cudaMemcpyHostToDevice);
  for (int s = 0; s < steps; ++s) {
    smooth(a, b, w, h);
    float* t = a;
    a = b;
    b = t;
  }
  std::vector<float> result(w * h);
  cudaMemcpy(result.data(), a, w * h * sizeof(float), cudaMemcpyDeviceToHost);

  std::vector<float> next(w * h);
  auto at = [&](int x, int y) { return image[std::min(std::max(x, 0), w - 1) + std::min(std::max(y, 0), h - 1) * w]; };
  for (int s = 0; s < steps; ++s) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) next[x + y * w] = (at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1)) * 0.25f;
    image.swap(next);
  }
  for (int i = 0; i < w * h; ++i)
    if (result[i] != image[i]) {
      printf("FAIL: point %d is %f, the host says %f\n", i, result[i], image[i]);
      return EXIT_FAILURE;
    }
  printf("PASS\n");
  cudaFree(a);
  cudaFree(b);
  return 0;
}
