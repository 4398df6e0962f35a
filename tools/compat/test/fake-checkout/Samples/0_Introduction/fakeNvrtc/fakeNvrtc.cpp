// Stands for a sample that builds its kernel from a string at run time.
#include <nvrtc.h>

int main() { return this_sample_is_never_built; }
