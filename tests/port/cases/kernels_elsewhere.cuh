// A kernel declared in a header, for launch_compiled.cu.
__global__ void elsewhere(int* p);
