#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
static unsigned b(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static void show(const char* w, cudaTextureObject_t t) {
  cudaTextureDesc back; memset(&back, 0xcc, sizeof back);
  cudaError_t e = cudaGetTextureObjectTextureDesc(&back, t);
  printf("%s: %d border %08x %08x %08x %08x mode %d aniso %u\n", w, (int)e, b(back.borderColor[0]), b(back.borderColor[1]),
         b(back.borderColor[2]), b(back.borderColor[3]), back.addressMode[0], back.maxAnisotropy);
}
int main() {
  float* p; cudaMalloc(&p, 1 << 16);
  cudaResourceDesc lin; memset(&lin, 0, sizeof lin); lin.resType = cudaResourceTypeLinear; lin.res.linear.devPtr = p;
  lin.res.linear.desc = cudaCreateChannelDesc<float>(); lin.res.linear.sizeInBytes = 1024;
  cudaTextureDesc d; memset(&d, 0, sizeof d); d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp;
  d.borderColor[2] = 0.5f; d.maxAnisotropy = 4;
  cudaTextureObject_t A, B, C;
  cudaCreateTextureObject(&A, &lin, &d, nullptr);
  cudaCreateTextureObject(&B, &lin, &d, nullptr);
  cudaResourceDesc rb;
  show("linear A before", A);
  cudaGetTextureObjectResourceDesc(&rb, A);
  show("linear A after its resource desc", A);
  show("linear B after A's resource desc", B);
  cudaGetTextureObjectResourceDesc(&rb, B);
  show("linear B after its own", B);
  show("linear A again", A);
  // uchar2 array, border mode, colour
  cudaChannelFormatDesc u2 = cudaCreateChannelDesc<uchar2>();
  cudaArray_t a; cudaMallocArray(&a, &u2, 8, 8);
  cudaResourceDesc ar; memset(&ar, 0, sizeof ar); ar.resType = cudaResourceTypeArray; ar.res.array.array = a;
  d.addressMode[0] = d.addressMode[1] = cudaAddressModeBorder; d.readMode = cudaReadModeNormalizedFloat;
  d.borderColor[0] = 0.25f;
  cudaCreateTextureObject(&C, &ar, &d, nullptr);
  show("uchar2 C before", C);
  cudaGetTextureObjectResourceDesc(&rb, C);
  show("uchar2 C after", C);
  cudaTextureObject_t D;
  cudaCreateTextureObject(&D, &ar, &d, nullptr);
  show("uchar2 D new after C's", D);
  cudaResourceViewDesc vb; cudaGetTextureObjectResourceViewDesc(&vb, D);
  show("uchar2 D after view desc", D);
  return 0;
}
