// The CPU's innermost loops: hardsigmoid over one row of elements. They are compiled once per
// instruction set from row_loops.cpp (DEFAULT, AVX2, AVX512 on x86-64; DEFAULT, which is NEON,
// and SVE256 on aarch64: each into the namespace of its
// CPU_CAPABILITY, as aten's own per-ISA kernels are) and chosen at run time as aten's DispatchStub
// chooses, from at::get_cpu_capability(), which honours ATEN_CPU_CAPABILITY
// (row_loop_selection.cpp). What is compiled in and runnable is told apart from that choice
// (row_loop_tables.cpp), which needs no libtorch: the ExecuTorch kernel library runs these loops
// too.
#pragma once

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

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

enum class Capability { kDefault, kAvx2, kAvx512, kSve256 };

// row_loop_tables.cpp (no libtorch):
// Whether the capability is compiled into the library and this processor can run it.
bool can_run(Capability capability);

// The capabilities compiled into the library that this processor can run, DEFAULT first.
std::vector<Capability> runnable_capabilities();

// aten's name for it: "DEFAULT", "AVX2", "AVX512", "SVE256".
std::string capability_name(Capability capability);

// The loops of the capability if it can run, else DEFAULT's.
const RowLoopTable& runnable_row_loops(Capability capability);

// row_loop_selection.cpp (libtorch):
// The capability aten runs with in this process, within those compiled in.
Capability selected_capability();

// The loops of one capability (an error if it cannot run), or of the selected one.
const RowLoopTable& row_loops(Capability capability);
const RowLoopTable& selected_row_loops();

// Each capability's table, defined by row_loops.cpp compiled with CPU_CAPABILITY set to it.
namespace DEFAULT {
const RowLoopTable& row_loop_table();
}
namespace AVX2 {
const RowLoopTable& row_loop_table();
}
namespace AVX512 {
const RowLoopTable& row_loop_table();
}
namespace SVE256 {
const RowLoopTable& row_loop_table();
}

}  // namespace hardsigmoid_ops::cpu
