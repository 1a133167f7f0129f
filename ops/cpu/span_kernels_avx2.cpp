// The row loops for AVX2 (with F16C); the flags are set in CMakeLists.txt.
#define HARDSIGMOID_OPS_CAPABILITY avx2
#include "ops/cpu/span_kernels_impl.h"
