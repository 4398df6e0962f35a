// Which launches name their kernel at compile time (weft::launch<k>, called
// directly for each CUDA thread), which pass a generic lambda (the
// arguments pick a template's arguments or an overload) and which pass the
// kernel as a value (called through a pointer, or through the grid compiled
// for it if it is registered).
#include "kernels_elsewhere.cuh"

__global__ void own(int* p) { p[threadIdx.x] = 1; }
template <class T>
__global__ void own_template(T* p) { p[threadIdx.x] = T(1); }
template <class T, class S>
__global__ void two_parameters(T* p, S* q) {}
__global__ void declared_first(int* p, int n);
__global__ void declared_first(int* p, int) {}
__global__ void overloaded(int* p) {}
__global__ void overloaded(float* p) {}
namespace ns {
__global__ void inside(int* p) {}
}  // namespace ns

void launches(int* p, float* f, void (*pointer)(int*)) {
  own<<<1, 32>>>(p);                // compiled: this file's kernel
  ns::inside<<<1, 32>>>(p);         // compiled: qualified
  own_template<float><<<1, 32>>>(f); // compiled: a template with its arguments
  own_template<<<1, 32>>>(f);       // a generic lambda: the arguments deduce T
  two_parameters<float><<<1, 32>>>(f, p);      // a generic lambda: the arguments deduce S
  two_parameters<float, int><<<1, 32>>>(f, p); // compiled: every template argument named
  declared_first<<<1, 32>>>(p, 2);  // compiled: declared twice with the same parameter types
  overloaded<<<1, 32>>>(p);         // a generic lambda: the arguments pick the overload
  pointer<<<1, 32>>>(p);            // a value: a function pointer
  (own)<<<1, 32>>>(p);              // a value: not a plain name
  elsewhere<<<1, 32>>>(p);          // compiled: declared in a header this file includes
}
