// CPU drivers: split the work across threads and hand contiguous spans to the loops.
//
// Two paths (ops/tensor_walk.h): a flat span split with at::parallel_for, or, for step slices,
// expanded inputs and mixed layouts, a TensorIterator whose contiguous rows go to the same loops.
#include "ops/cpu/hardsigmoid_cpu.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include "ops/cpu/scalar_loops.h"
#include "ops/tensor_walk.h"

namespace hardsigmoid_ops::cpu {
namespace {

// Elements per task for at::parallel_for: aten's own grain for pointwise ops.
constexpr int64_t kGrainSize = at::internal::GRAIN_SIZE;

template <typename scalar_t>
bool is_contiguous_row(const int64_t* strides, int ntensors) {
  for (int i = 0; i < ntensors; ++i) {
    if (strides[i] != static_cast<int64_t>(sizeof(scalar_t))) {
      return false;
    }
  }
  return true;
}

template <typename scalar_t>
void forward_typed(const at::Tensor& self, const at::Tensor& out) {
  if (same_dense_layout({&self, &out})) {
    const scalar_t* in = self.const_data_ptr<scalar_t>();
    scalar_t* result = out.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, self.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      forward_span(in + begin, result + begin, end - begin);
    });
    return;
  }
  at::TensorIterator iter = make_iterator(out, {self});
  iter.for_each(
      [](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        for (int64_t row = 0; row < size1; ++row) {
          char* out_row = data[0] + row * strides[2];
          const char* in_row = data[1] + row * strides[3];
          if (is_contiguous_row<scalar_t>(strides, 2)) {
            forward_span(reinterpret_cast<const scalar_t*>(in_row),
                         reinterpret_cast<scalar_t*>(out_row), size0);
            continue;
          }
          for (int64_t i = 0; i < size0; ++i) {
            forward_span(reinterpret_cast<const scalar_t*>(in_row + i * strides[1]),
                         reinterpret_cast<scalar_t*>(out_row + i * strides[0]), 1);
          }
        }
      },
      kGrainSize);
}

template <typename scalar_t>
void backward_typed(const at::Tensor& grad_output, const at::Tensor& self,
                    const at::Tensor& grad_input) {
  if (same_dense_layout({&grad_output, &self, &grad_input})) {
    const scalar_t* grad = grad_output.const_data_ptr<scalar_t>();
    const scalar_t* in = self.const_data_ptr<scalar_t>();
    scalar_t* result = grad_input.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, self.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      backward_span(grad + begin, in + begin, result + begin, end - begin);
    });
    return;
  }
  at::TensorIterator iter = make_iterator(grad_input, {grad_output, self});
  iter.for_each(
      [](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        for (int64_t row = 0; row < size1; ++row) {
          char* out_row = data[0] + row * strides[3];
          const char* grad_row = data[1] + row * strides[4];
          const char* in_row = data[2] + row * strides[5];
          if (is_contiguous_row<scalar_t>(strides, 3)) {
            backward_span(reinterpret_cast<const scalar_t*>(grad_row),
                          reinterpret_cast<const scalar_t*>(in_row),
                          reinterpret_cast<scalar_t*>(out_row), size0);
            continue;
          }
          for (int64_t i = 0; i < size0; ++i) {
            backward_span(reinterpret_cast<const scalar_t*>(grad_row + i * strides[1]),
                          reinterpret_cast<const scalar_t*>(in_row + i * strides[2]),
                          reinterpret_cast<scalar_t*>(out_row + i * strides[0]), 1);
          }
        }
      },
      kGrainSize);
}

}  // namespace

void hardsigmoid_kernel(const at::Tensor& self, const at::Tensor& out) {
  if (self.numel() == 0) {
    return;
  }
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(), "hardsigmoid_cpu",
                                  [&] { forward_typed<scalar_t>(self, out); });
}

void hardsigmoid_backward_kernel(const at::Tensor& grad_output, const at::Tensor& self,
                                 const at::Tensor& grad_input) {
  if (self.numel() == 0) {
    return;
  }
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, self.scalar_type(),
                                  "hardsigmoid_backward_cpu",
                                  [&] { backward_typed<scalar_t>(grad_output, self, grad_input); });
}

}  // namespace hardsigmoid_ops::cpu
