// Probe of surface accesses that may fault (issue 15): out of range with
// cudaBoundaryModeTrap, byte offsets that are not a multiple of the access's
// size, accesses wider or narrower than the array's element, in each
// boundary mode; and the surface object calls that the texture probe
// leaves open. A fault ends the CUDA context, so
// each case runs in a process of its own: run without arguments, the probe
// runs itself once per case and prints what each printed, in order.
//
//   nvcc -arch=sm_90 -o surface_trap_probe surface_trap_probe.cu && ./surface_trap_probe > surface_trap_probe.expected
//
// An unmodified CUDA program: weft builds it through the porting step.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

enum Access { kRead1D, kWrite1D, kRead2D, kWrite2D, kRead3D, kReadWide, kReadWide15, kReadUnderLayer, kReadNull };

struct Case {
  const char* name;
  Access access;
  int x, y, z;
  cudaSurfaceBoundaryMode mode;
};

const Case cases[] = {
    {"read1d x=64 (one past) trap", kRead1D, 64, 0, 0, cudaBoundaryModeTrap},
    {"read1d x=-4 trap", kRead1D, -4, 0, 0, cudaBoundaryModeTrap},
    {"write1d x=64 trap", kWrite1D, 64, 0, 0, cudaBoundaryModeTrap},
    {"write1d x=1000 trap", kWrite1D, 1000, 0, 0, cudaBoundaryModeTrap},
    {"read1d x=60 (last) trap", kRead1D, 60, 0, 0, cudaBoundaryModeTrap},
    {"read2d y=4 trap", kRead2D, 0, 4, 0, cudaBoundaryModeTrap},
    {"write2d y=-1 trap", kWrite2D, 0, -1, 0, cudaBoundaryModeTrap},
    {"read3d z=2 trap", kRead3D, 0, 0, 2, cudaBoundaryModeTrap},
    {"read1d x=2 (misaligned) trap", kRead1D, 2, 0, 0, cudaBoundaryModeTrap},
    {"read1d x=2 (misaligned) clamp", kRead1D, 2, 0, 0, cudaBoundaryModeClamp},
    {"read1d x=2 (misaligned) zero", kRead1D, 2, 0, 0, cudaBoundaryModeZero},
    {"read1d x=5 (misaligned) clamp", kRead1D, 5, 0, 0, cudaBoundaryModeClamp},
    {"write1d x=6 (misaligned) clamp", kWrite1D, 6, 0, 0, cudaBoundaryModeClamp},
    {"read1d x=62 (straddles end) clamp", kRead1D, 62, 0, 0, cudaBoundaryModeClamp},
    {"read1d x=62 (straddles end) zero", kRead1D, 62, 0, 0, cudaBoundaryModeZero},
    {"read1d x=62 (straddles end) trap", kRead1D, 62, 0, 0, cudaBoundaryModeTrap},
    {"read1d float2 from float array x=0 clamp", kReadWide, 0, 0, 0, cudaBoundaryModeClamp},
    {"read1d float2 from float array x=56 clamp", kReadWide, 56, 0, 0, cudaBoundaryModeClamp},
    {"read1d float2 from float array x=60 trap", kReadWide, 60, 0, 0, cudaBoundaryModeTrap},
    // 15 floats (60 bytes): an aligned 8-byte read at x=56 straddles the end.
    {"read1d float2 from 15-float array x=56 clamp", kReadWide15, 56, 0, 0, cudaBoundaryModeClamp},
    {"read1d float2 from 15-float array x=56 zero", kReadWide15, 56, 0, 0, cudaBoundaryModeZero},
    {"read1d float2 from 15-float array x=56 trap", kReadWide15, 56, 0, 0, cudaBoundaryModeTrap},
    {"read1d float2 from 15-float array x=64 clamp", kReadWide15, 64, 0, 0, cudaBoundaryModeClamp},
    {"read1d float4 from 15-float array x=48 clamp", kReadWide15, 48, 1, 0, cudaBoundaryModeClamp},
    {"read1d uchar from float array x=5 trap", kReadWide, 5, 1, 0, cudaBoundaryModeTrap},
    {"read1d uchar from float array x=65 clamp", kReadWide, 65, 1, 0, cudaBoundaryModeClamp},
    {"read2d y=-1 misaligned x=2 zero", kRead2D, 2, -1, 0, cudaBoundaryModeZero},
    {"read2d y=9 x=1000 clamp", kRead2D, 1000, 9, 0, cudaBoundaryModeClamp},
    {"read 2d layered layer -1 trap", kReadUnderLayer, 0, 0, -1, cudaBoundaryModeTrap},
    {"read surface object 0 clamp", kReadNull, 0, 0, 0, cudaBoundaryModeClamp},
};
const int case_count = sizeof cases / sizeof cases[0];

// Thread 5 of block 1 makes the access; the others only write their slot.
__global__ void access_kernel(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3, Case c,
                              unsigned* out) {
  if (blockIdx.x != 1 || threadIdx.x != 5) return;
  switch (c.access) {
    case kRead1D: out[0] = __float_as_uint(surf1Dread<float>(s1, c.x, c.mode)); break;
    case kWrite1D: surf1Dwrite(-1.0f, s1, c.x, c.mode); break;
    case kRead2D: out[0] = __float_as_uint(surf2Dread<float>(s2, c.x, c.y, c.mode)); break;
    case kWrite2D: surf2Dwrite(-1.0f, s2, c.x, c.y, c.mode); break;
    case kRead3D: out[0] = __float_as_uint(surf3Dread<float>(s3, c.x, c.y, c.z, c.mode)); break;
    case kReadWide:
      if (c.y == 1) {
        out[0] = surf1Dread<unsigned char>(s1, c.x, c.mode);
      } else {
        float2 v = surf1Dread<float2>(s1, c.x, c.mode);
        out[0] = __float_as_uint(v.x);
        out[1] = __float_as_uint(v.y);
      }
      break;
    case kReadWide15:
      // s3 is the 15-float array in these cases.
      if (c.y == 1) {
        float4 v = surf1Dread<float4>(s3, c.x, c.mode);
        out[0] = __float_as_uint(v.x);
        out[1] = __float_as_uint(v.w);
      } else {
        float2 v = surf1Dread<float2>(s3, c.x, c.mode);
        out[0] = __float_as_uint(v.x);
        out[1] = __float_as_uint(v.y);
      }
      break;
    case kReadUnderLayer: out[0] = __float_as_uint(surf2DLayeredread<float>(s3, c.x, c.y, c.z, c.mode)); break;
    case kReadNull: out[0] = __float_as_uint(surf1Dread<float>(0, c.x, c.mode)); break;
  }
}

static cudaSurfaceObject_t surface_over(cudaArray_t a) {
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  cudaCreateSurfaceObject(&s, &r);
  return s;
}

static void run_case(const Case& c) {
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  // Element i holds i + 0.5: 16 floats in 1D, 4 x 4 in 2D, 4 x 4 x 2 in 3D.
  float host[32];
  for (int i = 0; i < 32; ++i) host[i] = i + 0.5f;
  cudaArray_t a1 = nullptr, a2 = nullptr, a3 = nullptr;
  cudaMallocArray(&a1, &f, 16, 0, cudaArraySurfaceLoadStore);
  cudaMallocArray(&a2, &f, 4, 4, cudaArraySurfaceLoadStore);
  cudaMalloc3DArray(&a3, &f, make_cudaExtent(4, 4, 2), cudaArraySurfaceLoadStore);
  cudaMemcpy2DToArray(a1, 0, 0, host, 64, 64, 1, cudaMemcpyHostToDevice);
  cudaMemcpy2DToArray(a2, 0, 0, host, 16, 16, 4, cudaMemcpyHostToDevice);
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr(host, 16, 4, 4);
  p.dstArray = a3;
  p.extent = make_cudaExtent(4, 4, 2);
  p.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3D(&p);
  if (c.access == kReadWide15) {
    cudaArray_t a15 = nullptr;
    cudaMallocArray(&a15, &f, 15, 0, cudaArraySurfaceLoadStore);
    cudaMemcpy2DToArray(a15, 0, 0, host, 60, 60, 1, cudaMemcpyHostToDevice);
    a3 = a15;
  }
  if (c.access == kReadUnderLayer) {
    cudaArray_t layered = nullptr;
    cudaMalloc3DArray(&layered, &f, make_cudaExtent(4, 4, 2), cudaArrayLayered | cudaArraySurfaceLoadStore);
    a3 = layered;
  }
  cudaSurfaceObject_t s1 = surface_over(a1), s2 = surface_over(a2), s3 = surface_over(a3);
  unsigned* out = nullptr;
  cudaMalloc(&out, 8);
  cudaMemset(out, 0xee, 8);
  std::printf("%s: setup %d\n", c.name, (int)cudaGetLastError());

  access_kernel<<<2, 32>>>(s1, s2, s3, c, out);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  cudaError_t last = cudaGetLastError();
  cudaError_t again = cudaGetLastError();
  std::printf("%s: launch=%d sync=%d(%s) last=%d again=%d\n", c.name, (int)launch, (int)sync, cudaGetErrorName(sync),
              (int)last, (int)again);
  unsigned result[2] = {0, 0};
  cudaError_t copy = cudaMemcpy(result, out, 8, cudaMemcpyDeviceToHost);
  std::printf("%s: copy=%d", c.name, (int)copy);
  if (copy == cudaSuccess) std::printf(" result=%08x,%08x", result[0], result[1]);
  std::printf("\n");
  if (sync == cudaSuccess) {
    float back[16];
    cudaMemcpy2DFromArray(back, 64, a1, 0, 0, 64, 1, cudaMemcpyDeviceToHost);
    std::printf("%s: 1d contents", c.name);
    for (float v : back) {
      unsigned u;
      std::memcpy(&u, &v, 4);
      std::printf(" %08x", u);
    }
    std::printf("\n");
    float back2[16];
    cudaMemcpy2DFromArray(back2, 16, a2, 0, 0, 16, 4, cudaMemcpyDeviceToHost);
    std::printf("%s: 2d contents", c.name);
    for (float v : back2) {
      unsigned u;
      std::memcpy(&u, &v, 4);
      std::printf(" %08x", u);
    }
    std::printf("\n");
  }
  cudaError_t after = cudaMalloc(&out, 16);
  std::printf("%s: cudaMalloc after=%d\n", c.name, (int)after);
  std::fflush(stdout);
}

// Surface object calls the texture probe leaves open: handles destroyed
// twice or never made, and resource descriptor flags.
static void api_case() {
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
  cudaArray_t a = nullptr;
  cudaMallocArray(&a, &f, 16, 0, cudaArraySurfaceLoadStore);
  cudaResourceDesc r;
  std::memset(&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  cudaError_t e = cudaCreateSurfaceObject(&s, &r);
  std::printf("api: create %d handle-nonzero %d\n", (int)e, s != 0);
  cudaResourceDesc back;
  e = cudaGetSurfaceObjectResourceDesc(nullptr, s);
  std::printf("api: get desc null out %d last %d\n", (int)e, (int)cudaGetLastError());
  e = cudaDestroySurfaceObject(s);
  std::printf("api: destroy %d\n", (int)e);
  e = cudaDestroySurfaceObject(s);
  std::printf("api: destroy again %d last %d\n", (int)e, (int)cudaGetLastError());
  e = cudaGetSurfaceObjectResourceDesc(&back, s);
  std::printf("api: get desc destroyed %d last %d\n", (int)e, (int)cudaGetLastError());
  e = cudaGetSurfaceObjectResourceDesc(&back, 0);
  std::printf("api: get desc 0 %d last %d\n", (int)e, (int)cudaGetLastError());
  e = cudaDestroySurfaceObject(0x123456789ull);
  std::printf("api: destroy never made %d last %d\n", (int)e, (int)cudaGetLastError());
  r.flags = 1;
  e = cudaCreateSurfaceObject(&s, &r);
  std::printf("api: create flags 1 %d last %d\n", (int)e, (int)cudaGetLastError());
  if (e == cudaSuccess) cudaDestroySurfaceObject(s);
  // (A surface over a freed array crashes CUDA 13's runtime: not probed.)
  cudaFreeArray(a);
}

int main(int argc, char** argv) {
  if (argc == 2) {
    int i = std::atoi(argv[1]);
    if (i >= 0 && i < case_count) run_case(cases[i]);
    if (i == case_count) api_case();
    return 0;
  }
  // Each case in a fresh process, this program run again, so that a fault
  // in one leaves the next a working context.
  char self[4096];
  ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) return 1;
  self[length] = 0;
  for (int i = 0; i <= case_count; ++i) {
    std::fflush(stdout);
    char command[4200];
    std::snprintf(command, sizeof command, "'%s' %d", self, i);
    FILE* child = popen(command, "r");
    if (!child) {
      std::printf("case %d: popen failed\n", i);
      continue;
    }
    char line[1024];
    while (std::fgets(line, sizeof line, child)) std::fputs(line, stdout);
    int status = pclose(child);
    std::printf("case %d: exit %d\n", i, status);
  }
  return 0;
}
