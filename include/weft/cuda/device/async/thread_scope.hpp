// CUDA's thread scopes (CUDA guide, "Asynchronous Barrier", and libcu++):
// which threads may synchronise through an object. Unscoped, as in libcu++,
// so that both cuda::thread_scope_block and
// cuda::thread_scope::thread_scope_block name a scope. The values are
// libcu++'s.
#pragma once

namespace cuda {

enum thread_scope : int {
  thread_scope_system = 0,  // CUDA threads of every device, and host threads
  thread_scope_device = 1,  // the CUDA threads of one device
  thread_scope_block = 2,   // the threads of one block
  thread_scope_thread = 3,  // the calling thread alone
};

}  // namespace cuda
