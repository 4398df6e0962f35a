// Kernels in a .cu that main.cu includes.
__global__ void legacy_fill(int* out, int value) { out[threadIdx.x] = value; }
__global__ void legacy_add(int* out, int value) { out[threadIdx.x] += value; }
