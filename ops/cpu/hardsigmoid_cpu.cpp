// CPU drivers: split the work across threads and hand rows to the row loops of the instruction
// set aten runs with (capability_choice.h).
//
// A flat span's output, where it is fresh memory, asks for huge pages and is mapped by each thread
// a piece at a time before its loop writes the piece (ops/cpu/fresh_pages.h): a new output's page
// faults cost more than the op. The pieces are multiples of every vector step, so the loop's
// scalar tail stays at the end of the thread's range, where aten's is.
//
// Two walks (ops/tensor_walk.h): one flat span, or, for step slices, expanded inputs and mixed
// layouts, a TensorIterator whose rows (with their strides) go to the same loops. Both split the
// work as aten's loop does from aten's grain (at::internal::GRAIN_SIZE) up, so that every
// thread's range ends where aten's ends and the scalar tails of the vector loop, whose NaN bits
// differ from the vector iterations', fall on the same elements. Below aten's grain, where aten
// runs on one thread, a flat span is split at kGrainSize, at a multiple of every vector step
// (kRowLoopStepMultiple), which adds no tail.
#include "ops/cpu/hardsigmoid_cpu.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <algorithm>

#include "ops/cpu/capability_choice.h"
#include "ops/cpu/fresh_pages.h"
#include "ops/tensor_walk.h"

namespace hardsigmoid_ops::cpu {
namespace {

// Elements per task below aten's grain, measured by benchmarks/studies/grain_size.cpp
// (docs/performance_history.md, "Grain size"): it splits 2^14 elements in two, which aten's
// GRAIN_SIZE (32768) leaves on one thread, where the split pays; smaller grains cost more than
// they gain, and from 2^16 up the grain barely matters.
constexpr int64_t kGrainSize = 8192;

// f(begin, end) over the ranges of [0, n) that threads take.
template <typename F>
void split_span(int64_t n, const F& f) {
  if (n >= at::internal::GRAIN_SIZE) {
    at::parallel_for(0, n, at::internal::GRAIN_SIZE, f);
    return;
  }
  constexpr int64_t kStep = kRowLoopStepMultiple;
  at::parallel_for(0, (n + kStep - 1) / kStep, kGrainSize / kStep,
                   [&](int64_t begin, int64_t end) { f(begin * kStep, std::min(end * kStep, n)); });
}

template <typename scalar_t>
const scalar_t* row(char* const* data, const int64_t* outer_strides, int k, int64_t index) {
  return reinterpret_cast<const scalar_t*>(data[k] + index * outer_strides[k]);
}

template <typename scalar_t>
void forward_typed(const at::Tensor& self, const at::Tensor& out) {
  const RowLoops<scalar_t>& loops = selected_row_loops().get<scalar_t>();
  if (same_dense_layout({&self, &out})) {
    const scalar_t* in = self.const_data_ptr<scalar_t>();
    scalar_t* result = out.mutable_data_ptr<scalar_t>();
    const FreshOutput fresh(result, self.numel(), sizeof(scalar_t));
    split_span(self.numel(), [&](int64_t begin, int64_t end) {
      fresh.write(begin, end, kRowLoopStepMultiple, [&](int64_t piece_begin, int64_t piece_end) {
        loops.forward(in + piece_begin, 1, result + piece_begin, 1, piece_end - piece_begin);
      });
    });
    return;
  }
  constexpr int64_t kSize = sizeof(scalar_t);
  at::TensorIterator iter = make_iterator(out, {self});
  iter.for_each(
      [&loops](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        const int64_t* outer = strides + 2;
        for (int64_t r = 0; r < size1; ++r) {
          loops.forward(row<scalar_t>(data, outer, 1, r), strides[1] / kSize,
                        const_cast<scalar_t*>(row<scalar_t>(data, outer, 0, r)), strides[0] / kSize,
                        size0);
        }
      },
      at::internal::GRAIN_SIZE);
}

template <typename scalar_t>
void backward_typed(const at::Tensor& grad_output, const at::Tensor& self,
                    const at::Tensor& grad_input) {
  const RowLoops<scalar_t>& loops = selected_row_loops().get<scalar_t>();
  if (same_dense_layout({&grad_output, &self, &grad_input})) {
    const scalar_t* grad = grad_output.const_data_ptr<scalar_t>();
    const scalar_t* in = self.const_data_ptr<scalar_t>();
    scalar_t* result = grad_input.mutable_data_ptr<scalar_t>();
    const FreshOutput fresh(result, self.numel(), sizeof(scalar_t));
    split_span(self.numel(), [&](int64_t begin, int64_t end) {
      fresh.write(begin, end, kRowLoopStepMultiple, [&](int64_t piece_begin, int64_t piece_end) {
        loops.backward(grad + piece_begin, 1, in + piece_begin, 1, result + piece_begin, 1,
                       piece_end - piece_begin);
      });
    });
    return;
  }
  constexpr int64_t kSize = sizeof(scalar_t);
  at::TensorIterator iter = make_iterator(grad_input, {grad_output, self});
  iter.for_each(
      [&loops](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        const int64_t* outer = strides + 3;
        for (int64_t r = 0; r < size1; ++r) {
          loops.backward(row<scalar_t>(data, outer, 1, r), strides[1] / kSize,
                         row<scalar_t>(data, outer, 2, r), strides[2] / kSize,
                         const_cast<scalar_t*>(row<scalar_t>(data, outer, 0, r)),
                         strides[0] / kSize, size0);
        }
      },
      at::internal::GRAIN_SIZE);
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
