// A kernel with default arguments may be launched with fewer arguments than
// it has parameters: weft-port passes a lambda that calls it, so that the
// call supplies the defaults, as nvcc's does.
__global__ void scan(int* data, int width, int* partial_sums = nullptr) {}
template <int N>
__global__ void scan_n(int* data, int width = N) {}

void launches(int* data, int* sums) {
  scan<<<4, 32, 128>>>(data, 32, sums);
  scan<<<1, 32, 128>>>(sums, 32);
  scan_n<8><<<1, 32>>>(data);
}
