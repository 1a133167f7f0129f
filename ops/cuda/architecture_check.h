// Whether the library holds CUDA code that runs on a GPU: SASS of its architecture, or PTX the
// driver compiles for it. A GPU with neither gets the library's own error, naming its compute
// capability and the code held, before any launch (CUDA's own would be "no kernel image is
// available for execution on the device", at the launch).
#pragma once

#include <c10/core/Device.h>

namespace hardsigmoid_ops::cuda {

// Throws c10::Error unless the library's kernels run on `device`, the current device. Asked of
// the CUDA runtime once per device; later calls read the answer.
void check_device_has_code(c10::DeviceIndex device);

}  // namespace hardsigmoid_ops::cuda
