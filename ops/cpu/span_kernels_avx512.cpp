// The row loops for AVX-512 (F, BW, VL, DQ); the flags are set in CMakeLists.txt.
#define HARDSIGMOID_OPS_CAPABILITY avx512
#include "ops/cpu/span_kernels_impl.h"
