// Launches spread over several lines keep every line where it was.
__global__ void saxpy(int n, float a, const float* x, float* y) {}

void multiline(int n, float a, const float* x, float* y) {
  saxpy<<<(n + 255) / 256,
          256>>>(n,
                 a,
                 x,
                 y);
  saxpy<<<
      1, 1
  >>>(
      n, a, x, y
  );
  saxpy<<<1, 1>>>(n, a,  // the scale
                  x,     // input
                  y);    // output
  saxpy
      <<<1, 1>>>
      (n, a, x, y);
}
