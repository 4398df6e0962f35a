// extern __shared__ arrays in functions become pointers to the dynamic
// shared memory, whatever the element type and qualifiers.
struct Particle { float3 position; float mass; };

template <class T>
__global__ void reduce(const T* in, T* out) {
  extern __shared__ T partial[];
  partial[threadIdx.x] = in[threadIdx.x];
}

__global__ void kinds() {
  extern __shared__ float floats[];
  extern __shared__ unsigned char bytes[];
  extern __shared__ __align__(16) unsigned char aligned_bytes[];
  extern __shared__ float2 pairs[];
  extern __shared__ Particle particles[];
  extern __shared__ volatile int flags[];
  extern __shared__ alignas(16) double doubles[];
  extern __shared__ long long wide[] __attribute__((aligned(8)));
  __shared__ extern int reversed[];
  extern __shared__ float tile[][33];
  extern __shared__ /* the staging area */ float
      staged
      [];
  if (threadIdx.x == 0) { extern __shared__ char inner[]; }
  auto lambda = [] { extern __shared__ short in_lambda[]; };
}

#define DYNAMIC_SHARED(T, name) extern __shared__ T name[]
#define DYNAMIC_SHARED_LINES(T, name) \
  extern __shared__                   \
  T name[];
