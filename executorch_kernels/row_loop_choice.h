// The row loops the ExecuTorch kernels run (no libtorch in the process to ask aten's choice).
#pragma once

#include "ops/cpu/row_loops.h"

namespace hardsigmoid_ops::executorch_kernels {

// aten's default choice, made as aten makes it without libtorch (capability.h's
// capability_without_aten): ATEN_CPU_CAPABILITY ("default", "avx2", "avx512", "sve256", as aten
// reads it) when set and runnable, else the widest instruction set this processor runs.
// So a model run in ExecuTorch computes what eager aten computes on the same machine, set up the
// same way.
const cpu::RowLoopTable& chosen_row_loops();

}  // namespace hardsigmoid_ops::executorch_kernels
