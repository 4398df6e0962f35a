// A test of __CUDA_ARCH__ at namespace scope around both host and device
// code, read differently by the two views: weft cannot compile both, and
// says so at the line.
#ifdef __CUDA_ARCH__
__device__ float pick(float x) { return x; }
#else
float pick(float x) { return -x; }
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 200
__device__ float fine_on_both(float x) { return x; }
float also_fine(float x) { return x; }
#endif
