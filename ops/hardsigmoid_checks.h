// Input validation shared by every device: each refusal names the op and what is wrong, and
// happens before anything is written. Messages are built from strings and scalars only (sizes are
// formatted here, not streamed as IntArrayRef).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

namespace hardsigmoid_ops::checks {

// "[2, 3, 4]"; symbolic sizes print as their expression.
std::string format_sizes(c10::SymIntArrayRef sizes);

// A dense (strided) tensor of float32, float64, float16 or bfloat16.
void check_input(const char* op, const char* name, const at::Tensor& t);

// A CPU tensor quantized per tensor (affine) as QUInt8, QInt8 or QInt32: what aten's quantized
// hardsigmoid takes. Per-channel schemes, other quantized dtypes and other devices are refused.
void check_quantized_input(const char* op, const char* name, const at::Tensor& t);

// What the forward ops (hardsigmoid, hardsigmoid_, hardsigmoid_out) take: check_quantized_input's
// tensors when quantized, else check_input's.
void check_forward_input(const char* op, const char* name, const at::Tensor& t);

// self and out of a quantized out= call: both quantized as check_quantized_input takes them,
// of one dtype, shape and device.
void check_quantized_out(const char* op, const at::Tensor& self, const at::Tensor& out);

// The tensors live on one device.
void check_same_device(const char* op, const char* name_a, const at::Tensor& a, const char* name_b,
                       const at::Tensor& b);

// The tensors have one shape and one dtype.
void check_same_shape_and_dtype(const char* op, const char* name_a, const at::Tensor& a,
                                const char* name_b, const at::Tensor& b);

// No two elements of a tensor about to be written share memory (an expanded tensor, say).
void check_no_internal_overlap(const char* op, const char* name, const at::Tensor& t);

// `out` is `self` element for element, or shares no memory with it.
void check_no_partial_overlap(const char* op, const at::Tensor& self, const at::Tensor& out);

}  // namespace hardsigmoid_ops::checks
