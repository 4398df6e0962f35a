// CUDA's declaration qualifiers, which only a macro can spell. On the CPU
// every function runs on the host, so the execution-space qualifiers vanish.
//
// __shared__ becomes `thread_local`: a worker runs one block at a time, so a
// worker's thread-local statics are exactly the running block's shared
// memory, and blocks on different workers never see each other's. Inside a
// function thread_local implies static, so `__shared__ float s[16];` and
// `static __shared__ float s[16];` both work. As in CUDA, shared variables
// start uninitialised for each block (they keep whatever the worker's
// previous block left).
#pragma once

#define __global__
#define __device__
#define __host__
#define __shared__ thread_local
