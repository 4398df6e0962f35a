// The other source of stackless_header.cu's program: it includes one of that
// file's headers too.
#include "stackless_header_shared.cuh"
