// The host half of the sample, compiled as plain C++: it finds a device,
// checks the device's result against the host's, and prints its verdict.
#include <fake_helpers.h>

#include <cstdio>
#include <vector>

void scaleOnDevice(float* host, float factor, int count);

int main() {
  int devices = 0;
  checkFake(cudaGetDeviceCount(&devices));
  std::printf("fakeSample: %d device(s)\n", devices);

  const int count = 1000;
  std::vector<float> values(count);
  for (int i = 0; i < count; ++i) values[i] = static_cast<float>(i);
  scaleOnDevice(values.data(), 3.0f, count);

  int wrong = 0;
  for (int i = 0; i < count; ++i) wrong += values[i] != 3.0f * i;
  std::printf("%s\n", wrong == 0 ? "Test passed" : "Test failed");
  return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
