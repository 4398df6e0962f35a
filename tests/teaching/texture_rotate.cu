// Image rotation with a texture: the image lives in a CUDA array, a texture
// object reads it with normalized coordinates ([0, 1) across the image,
// whatever its size) and linear filtering (each fetch blends the four
// nearest texels), and one thread computes one output pixel by fetching
// where the pixel came from before the rotation. Pixels that came from
// outside the image read the border colour, zero.
//
// The host checks every pixel against its own bilinear interpolation. The
// texture unit computes the blend weights in fixed point with 8 fractional
// bits (CUDA Programming Guide, "Texture Fetching", linear filtering), so
// the reference rounds its weights to multiples of 1/256 as well.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void rotateImage(float* output, cudaTextureObject_t image, int width, int height, float angle) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  // The centre of output pixel (x, y), in normalized coordinates relative to
  // the image's centre, turned back by the angle.
  float u = (x + 0.5f) / width - 0.5f;
  float v = (y + 0.5f) / height - 0.5f;
  float c = cosf(angle), s = sinf(angle);
  float tu = u * c - v * s + 0.5f;
  float tv = u * s + v * c + 0.5f;
  output[y * width + x] = tex2D<float>(image, tu, tv);
}

// The texel at (i, j), or the border colour outside the image.
float texel(const std::vector<float>& image, int width, int height, int i, int j) {
  if (i < 0 || j < 0 || i >= width || j >= height) return 0.0f;
  return image[j * width + i];
}

// A weight as the texture unit holds it: a multiple of 1/256.
float fixedPointWeight(float fraction) { return std::round(fraction * 256.0f) / 256.0f; }

int main() {
  const int width = 128, height = 64;
  const float angle = 0.5f;  // radians

  // A smooth pattern with some detail, values in [0, 1].
  std::vector<float> image(width * height);
  for (int j = 0; j < height; ++j)
    for (int i = 0; i < width; ++i)
      image[j * width + i] = 0.5f + 0.25f * sinf(i * 0.2f) + 0.25f * cosf(j * 0.3f);

  // The image into a CUDA array of floats.
  cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  cudaMallocArray(&array, &channel, width, height);
  cudaMemcpy2DToArray(array, 0, 0, image.data(), width * sizeof(float), width * sizeof(float), height,
                      cudaMemcpyHostToDevice);

  // What the texture reads (the array) and how (normalized coordinates,
  // linear filtering, zero outside).
  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaTextureDesc how = {};
  how.addressMode[0] = cudaAddressModeBorder;
  how.addressMode[1] = cudaAddressModeBorder;
  how.filterMode = cudaFilterModeLinear;
  how.readMode = cudaReadModeElementType;
  how.normalizedCoords = 1;
  cudaTextureObject_t texture = 0;
  cudaCreateTextureObject(&texture, &resource, &how, nullptr);

  float* d_output;
  cudaMalloc(&d_output, width * height * sizeof(float));
  dim3 block(16, 16);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  rotateImage<<<grid, block>>>(d_output, texture, width, height, angle);
  std::vector<float> output(width * height);
  cudaError_t err = cudaMemcpy(output.data(), d_output, width * height * sizeof(float), cudaMemcpyDeviceToHost);
  bool ok = err == cudaSuccess;
  if (!ok) printf("CUDA error: %s\n", cudaGetErrorString(err));

  // The reference: the same coordinates, then texel space (the centre of
  // texel i is at i + 0.5), the four neighbours and the 8-bit weights.
  // The tolerance is one step of a weight (1/256) times the differences
  // between the neighbours: the hardware rounds coordinates and weights in
  // ways this model does not follow to the bit (it holds the coordinate in
  // fixed point and derives the corners' weights from rounded products),
  // and the device may compute a coordinate one rounding away from the
  // host's (nvcc fuses multiply-adds); either moves a weight by a step.
  float worst = 0.0f;
  int wrong = 0, borderPixels = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float u = (x + 0.5f) / width - 0.5f;
      float v = (y + 0.5f) / height - 0.5f;
      float c = cosf(angle), s = sinf(angle);
      float tu = u * c - v * s + 0.5f;
      float tv = u * s + v * c + 0.5f;
      float xb = tu * width - 0.5f, yb = tv * height - 0.5f;
      int i = (int)floorf(xb), j = (int)floorf(yb);
      float a = fixedPointWeight(xb - floorf(xb)), b = fixedPointWeight(yb - floorf(yb));
      float t00 = texel(image, width, height, i, j), t10 = texel(image, width, height, i + 1, j);
      float t01 = texel(image, width, height, i, j + 1), t11 = texel(image, width, height, i + 1, j + 1);
      float expected = (1 - a) * (1 - b) * t00 + a * (1 - b) * t10 + (1 - a) * b * t01 + a * b * t11;
      float across = fmaxf(fabsf(t10 - t00), fabsf(t11 - t01));
      float down = fmaxf(fabsf(t01 - t00), fabsf(t11 - t10));
      float tolerance = (across + down) / 256.0f + 1e-5f;
      float error = fabsf(output[y * width + x] - expected);
      worst = fmaxf(worst, error);
      if (error > tolerance) {
        if (wrong < 5) printf("pixel (%d, %d): %f, expected %f\n", x, y, output[y * width + x], expected);
        ++wrong;
      }
      if (expected == 0.0f) ++borderPixels;
    }
  printf("rotated a %dx%d image by %.2f rad: %d pixels from outside the image, largest difference %g\n", width,
         height, angle, borderPixels, worst);
  ok = ok && wrong == 0 && borderPixels > 0;

  cudaDestroyTextureObject(texture);
  cudaFreeArray(array);
  cudaFree(d_output);
  printf(ok ? "PASS\n" : "FAIL\n");
  return ok ? 0 : 1;
}
