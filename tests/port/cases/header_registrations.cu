// A .cu's port registers the non-template kernels its headers define, as
// its own, after its last line; --explain names those left out for an #if.
#include "header_registrations.cuh"
#include "header_registrations_nested.cuh"
#ifdef HEADER_REGISTRATIONS_OPTIONAL
#include "header_registrations_optional.cuh"
#include "header_registrations_nested.cuh"  // registered: included above too
#endif

__global__ void declared_again(int* p);

__global__ void own(int* p) {}
