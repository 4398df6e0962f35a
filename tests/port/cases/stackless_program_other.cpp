// The other source of stackless_program.cu's program: it declares one of
// that file's kernels with the `void` CUDA gives it, and launches it by address.
#include <cuda_runtime.h>

void shared_with_the_host_file(int* data);

void launch_by_address(int* data) {
  void* args[] = {&data};
  cudaLaunchKernel(reinterpret_cast<const void*>(&shared_with_the_host_file), 1, 32, args, 0, nullptr);
}
