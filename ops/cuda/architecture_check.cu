// The CUDA runtime is asked whether a kernel of this file runs on the device: every CUDA source
// of the library is compiled with the same -gencode flags, so one kernel answers for all of them.
// HARDSIGMOID_OPS_CUDA_SASS_NAMES and _PTX_NAMES come from the build
// (cmake/cuda_architectures.cmake).
#include "ops/cuda/architecture_check.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/macros/Macros.h>

#include <array>
#include <atomic>
#include <cstdint>

namespace hardsigmoid_ops::cuda {
namespace {

__global__ void probe_kernel() {}

enum class Code : std::int8_t { kUnknown, kRuns, kMissing, kDriverCannotCompile };

std::array<std::atomic<Code>, C10_COMPILE_TIME_MAX_GPUS> codes_by_device{};

Code ask_runtime() {
  cudaFuncAttributes attributes;
  const cudaError_t error = cudaFuncGetAttributes(&attributes, probe_kernel);
  switch (error) {
    case cudaSuccess:
      return Code::kRuns;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
      (void)cudaGetLastError();  // not sticky, but left set it would surface at the next check
      return Code::kMissing;
    // Only PTX could serve the GPU, and the driver cannot compile it (older than the toolkit).
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidPtx:
    case cudaErrorJitCompilerNotFound:
      (void)cudaGetLastError();
      return Code::kDriverCannotCompile;
    default:
      C10_CUDA_CHECK(error);
      return Code::kUnknown;
  }
}

}  // namespace

void check_device_has_code(c10::DeviceIndex device) {
  TORCH_INTERNAL_ASSERT(device >= 0 && device < C10_COMPILE_TIME_MAX_GPUS);
  std::atomic<Code>& code = codes_by_device[device];
  Code known = code.load(std::memory_order_relaxed);
  if (known == Code::kRuns) {
    return;
  }
  if (known == Code::kUnknown) {
    known = ask_runtime();
    code.store(known, std::memory_order_relaxed);
  }
  if (known == Code::kMissing || known == Code::kDriverCannotCompile) {
    const cudaDeviceProp* properties = at::cuda::getDeviceProperties(device);
    const int major = properties->major;
    const int minor = properties->minor;
    TORCH_CHECK(false, "hardsigmoid_ops: no CUDA code for this GPU",
                known == Code::kDriverCannotCompile
                    ? " that its driver can run (only PTX could serve it, and the driver is older "
                      "than the CUDA toolkit that built the library: update the driver, or build "
                      "for the GPU)"
                    : "",
                // DeviceIndex is a char type: streamed as it is, index 0 would end the message.
                ": cuda:", static_cast<int>(device), " (", properties->name,
                ") has compute capability ", major, ".", minor, " (sm_", major, minor,
                "), and this library holds SASS for ", HARDSIGMOID_OPS_CUDA_SASS_NAMES,
                " and PTX for ", HARDSIGMOID_OPS_CUDA_PTX_NAMES,
                ". Build it for this GPU from source: TORCH_CUDA_ARCH_LIST=\"", major, ".", minor,
                "\" pip install --no-build-isolation <source> (or CMake with "
                "-DTORCH_CUDA_ARCH_LIST=\"",
                major, ".", minor, "\").");
  }
}

}  // namespace hardsigmoid_ops::cuda
