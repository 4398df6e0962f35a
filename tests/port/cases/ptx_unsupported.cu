// Inline PTX that weft cannot run: each statement is reported at its line,
// with its instruction.
__device__ unsigned bits(unsigned x) {
  unsigned r;
  asm volatile("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
  asm("mov.u32 %0, %%globaltimer;" : "=r"(r));
  asm("mov.u64 %0, %%laneid;" : "=l"(r));
  asm("mov.u32 %0, %%laneid;" : "=l"(r));
  asm("mov.u32 %0, %%pm0;" : "=r"(r));
  asm("mov.u32 %0, %%laneid; add.u32 %0, %0, 1;" : "=r"(r));
  asm("mov.u32 %0, %1;" : "=r"(r) : "r"(x));
  return r;
}

__global__ void k(unsigned char* flag) { asm volatile("st.release.sys.global.u8 [%1], %0;" ::"r"(1), "l"(flag) : "memory"); }

__device__ void named_barriers(unsigned long long wide, int id) {
  asm volatile("bar.arrive 1;");
  asm volatile("bar.sync %0;" ::"l"(wide));
  asm volatile("bar.sync %1;" ::"r"(id));
  asm volatile("bar.sync %0, %1, %1;" ::"r"(id), "r"(id));
  asm volatile("bar.sync %0, 64;" : "=r"(id));
  asm volatile("bar.red.popc.u32 %0, 1, %1;" : "=r"(id) : "r"(id));
}
