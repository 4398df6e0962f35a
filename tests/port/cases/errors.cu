// Constructs weft-port cannot port: each is reported at its line.
extern __shared__ float first[], second[];

__global__ void k(int* p) {
  extern __shared__ float sized[128];
  extern __shared__ float* pointer;
}

void launches(int* p) {
  <<<1, 1>>>(p);
  k<<<1, 1>>>;
  k<<<1, 1(p);
}
