// hardsigmoid_ops::hardsigmoid.out as an ExecuTorch kernel: the library's own CPU row loops
// (ops/cpu/row_loops.h) on ExecuTorch's tensors, so a model run in ExecuTorch gets eager aten's
// CPU bits. Registered with ExecuTorch's registry by kernel_registration.cpp.
#pragma once

#include <executorch/runtime/kernel/kernel_includes.h>

// The library is built with hidden visibility: this function is all it exports (besides the
// registration, which needs no symbol).
#define HARDSIGMOID_OPS_EXECUTORCH_API __attribute__((visibility("default")))

namespace hardsigmoid_ops::executorch_kernels {

// out = hardsigmoid(self). out is resized to self's shape (within its capacity) and must have
// self's dtype and dim order; it may be self, and may not partly overlap it. float32, float64,
// float16 and bfloat16. Bad input fails the kernel (the method's execution returns an error,
// ExecuTorch's log names the op and what is wrong) with out untouched.
HARDSIGMOID_OPS_EXECUTORCH_API executorch::aten::Tensor& hardsigmoid_out(
    executorch::runtime::KernelRuntimeContext& context, const executorch::aten::Tensor& self,
    executorch::aten::Tensor& out);

}  // namespace hardsigmoid_ops::executorch_kernels
