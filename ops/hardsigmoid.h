// hardsigmoid_ops: the public C++ API.
//
// Each function calls its op through PyTorch's dispatcher, so one call serves CPU and CUDA
// tensors, meta tensors, and autograd. The library registers the ops when it is loaded: link it
// with -Wl,--no-as-needed (or load it) so that its registrations run.
//
//   hardsigmoid(x)            = min(max(x + 3, 0), 6) / 6, a new tensor with x's layout
//   hardsigmoid_(x)           writes the result into x and returns x
//   hardsigmoid_out(x, out)   writes into out (x's shape, dtype and device; may be x), returns out
//   hardsigmoid_backward(g, x) the gradient with respect to x, given the output gradient g
//
// Results are bit-for-bit at::hardsigmoid's on the same device: float32, float64, float16 and
// bfloat16 on the CPU and CUDA (and meta tensors), and per-tensor quantized quint8, qint8 and
// qint32 on the CPU (the backward excepted, as aten's). Bad input raises c10::Error and leaves
// every tensor untouched.
#pragma once

#include <ATen/core/Tensor.h>

// The library is built with hidden visibility: these four functions are all it exports.
#define HARDSIGMOID_OPS_API __attribute__((visibility("default")))

namespace hardsigmoid_ops {

HARDSIGMOID_OPS_API at::Tensor hardsigmoid(const at::Tensor& self);
HARDSIGMOID_OPS_API at::Tensor hardsigmoid_(const at::Tensor& self);
HARDSIGMOID_OPS_API at::Tensor hardsigmoid_out(const at::Tensor& self, const at::Tensor& out);
HARDSIGMOID_OPS_API at::Tensor hardsigmoid_backward(const at::Tensor& grad_output,
                                                    const at::Tensor& self);

}  // namespace hardsigmoid_ops
