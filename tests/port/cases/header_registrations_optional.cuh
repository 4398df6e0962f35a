// Included by header_registrations.cu inside an #if: not registered.
#pragma once

__global__ void behind_an_if(int* p) {}
