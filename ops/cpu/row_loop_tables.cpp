// The row loops compiled into the library and which of them this processor can run. Free of ATen
// and c10's library (only their headers' types): the ExecuTorch kernel library links it too, with
// no libtorch (executorch_kernels/row_loop_choice.cpp). Which one runs in a torch process is aten's
// choice: row_loop_selection.cpp.
#include "ops/cpu/row_loops.h"

#if defined(HARDSIGMOID_OPS_AARCH64_CAPABILITIES)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace hardsigmoid_ops::cpu {

bool can_run(Capability capability) {
  switch (capability) {
    case Capability::kDefault:
      return true;
#if defined(HARDSIGMOID_OPS_X86_CAPABILITIES)
    case Capability::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("f16c");
    case Capability::kAvx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
#endif
#if defined(HARDSIGMOID_OPS_AARCH64_CAPABILITIES)
    case Capability::kSve256:
      // aten's test: SVE and BF16, and vectors of 256 bits (the length this process runs with).
      return (getauxval(AT_HWCAP) & HWCAP_SVE) && (getauxval(AT_HWCAP2) & HWCAP2_BF16) &&
             (prctl(PR_SVE_GET_VL) & PR_SVE_VL_LEN_MASK) == 32;
#endif
    default:
      return false;
  }
}

std::string capability_name(Capability capability) {
  switch (capability) {
    case Capability::kAvx2:
      return "AVX2";
    case Capability::kAvx512:
      return "AVX512";
    case Capability::kSve256:
      return "SVE256";
    default:
      return "DEFAULT";
  }
}

std::vector<Capability> runnable_capabilities() {
  std::vector<Capability> runnable;
  for (Capability c :
       {Capability::kDefault, Capability::kAvx2, Capability::kAvx512, Capability::kSve256}) {
    if (can_run(c)) runnable.push_back(c);
  }
  return runnable;
}

const RowLoopTable& runnable_row_loops(Capability capability) {
  switch (can_run(capability) ? capability : Capability::kDefault) {
#if defined(HARDSIGMOID_OPS_X86_CAPABILITIES)
    case Capability::kAvx2:
      return AVX2::row_loop_table();
    case Capability::kAvx512:
      return AVX512::row_loop_table();
#endif
#if defined(HARDSIGMOID_OPS_AARCH64_CAPABILITIES)
    case Capability::kSve256:
      return SVE256::row_loop_table();
#endif
    default:
      return DEFAULT::row_loop_table();
  }
}

}  // namespace hardsigmoid_ops::cpu
