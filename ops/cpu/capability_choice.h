// Which of the capability table's loops run in a torch process: aten's own choice
// (at::get_cpu_capability(), which honours ATEN_CPU_CAPABILITY), under DispatchStub's rule
// (capability.h's *_loops_from).
#pragma once

#include "ops/cpu/capability.h"
#include "ops/cpu/row_loops.h"

namespace hardsigmoid_ops::cpu {

// The capability aten runs with, DEFAULT where the table has no entry of its name.
Capability atens_capability();

// The row loops (of atens_capability() itself: they are compiled for each capability), and the
// quantized loops (AVX2's where aten runs AVX512: its quantized kernels have no AVX512 slot;
// their type is quantized/quantized_loops.h's).
const RowLoopTable& selected_row_loops();
const QuantizedLoops& selected_quantized_loops();

}  // namespace hardsigmoid_ops::cpu
