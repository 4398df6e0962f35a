// Included by header_registrations.cuh and by header_registrations.cu
// itself: its kernel is registered once.
#pragma once

__global__ void nested(int* p) {}
