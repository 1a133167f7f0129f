// Registers the ExecuTorch kernels with ExecuTorch's operator registry (in libexecutorch.so) when
// this library is loaded: by a C++ runner linking it, or by the Python package into the process of
// ExecuTorch's Python runtime, whose pybindings use the same libexecutorch.so. The name is the
// one a program lowered by to_executorch calls: the out overload of hardsigmoid_ops::hardsigmoid
// (registration/schemas.cpp).
#include <executorch/extension/kernel_util/make_boxed_from_unboxed_functor.h>

#include "executorch_kernels/hardsigmoid_out.h"

EXECUTORCH_LIBRARY(hardsigmoid_ops, "hardsigmoid.out",
                   hardsigmoid_ops::executorch_kernels::hardsigmoid_out);
