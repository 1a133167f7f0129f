// The row loops for any x86-64 (or other) processor: the baseline instruction set.
#define HARDSIGMOID_OPS_CAPABILITY portable
#include "ops/cpu/span_kernels_impl.h"
