// The CPU's innermost loops: hardsigmoid over one row of elements, for every float dtype. Compiled
// once per CPU capability from row_loops.cpp, each into the namespace of its CPU_CAPABILITY as
// aten's own per-ISA kernels are, and registered in the capability table (capability.h), which
// chooses among them (capability_choice.h in a torch process). Free of libtorch: the ExecuTorch
// kernel library runs these loops too.
#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <type_traits>

namespace hardsigmoid_ops::cpu {

// One row: n elements spaced by strides counted in elements. Strides of 1 (and a broadcast input
// of stride 0 beside them) take the vector loop, as in aten.
template <typename scalar_t>
struct RowLoops {
  void (*forward)(const scalar_t* in, int64_t in_stride, scalar_t* out, int64_t out_stride,
                  int64_t n);
  void (*backward)(const scalar_t* grad_output, int64_t grad_output_stride, const scalar_t* self,
                   int64_t self_stride, scalar_t* grad_input, int64_t grad_input_stride, int64_t n);
};

// One instruction set's loops, for every dtype.
struct RowLoopTable {
  RowLoops<float> f32;
  RowLoops<double> f64;
  RowLoops<c10::Half> f16;
  RowLoops<c10::BFloat16> bf16;

  template <typename scalar_t>
  const RowLoops<scalar_t>& get() const {
    if constexpr (std::is_same_v<scalar_t, float>) return f32;
    if constexpr (std::is_same_v<scalar_t, double>) return f64;
    if constexpr (std::is_same_v<scalar_t, c10::Half>) return f16;
    if constexpr (std::is_same_v<scalar_t, c10::BFloat16>) return bf16;
  }
};

// Split points between threads that are a multiple of this many elements fall between two
// iterations of every table's vector loop, so they add no scalar tail (a multiple of the widest
// step: two 256-bit vectors of a 16-bit type are 32 elements).
constexpr int64_t kRowLoopStepMultiple = 64;

}  // namespace hardsigmoid_ops::cpu
