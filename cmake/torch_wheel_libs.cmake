# torch's CUDA libraries find their NCCL, cuDNN, ... in the nvidia wheels beside torch (their
# RPATH: $ORIGIN/../../nvidia/*/lib). Linking an executable, the linker resolves those indirect
# dependencies through the executable's own rpath first, where torch's CMake puts the CUDA
# toolkit's lib directory; a toolkit NCCL older than the wheel's (torch 2.15's NCCL against CUDA
# 13.0's) then lacks symbols and the link fails inside libtorch_cuda.so. -rpath-link, searched
# first, points the linker at the wheels. Used by this project's build and, installed beside
# HardsigmoidOpsConfig.cmake, by a consumer's (on the imported target).

# Sets out_var to the linker option, or to "" where torch has no nvidia wheels beside it
# (a libtorch download, a CPU-only torch). Needs TORCH_INSTALL_PREFIX (find_package(Torch)).
function(hardsigmoid_ops_torch_wheel_link_option out_var)
  file(GLOB _dirs LIST_DIRECTORIES true "${TORCH_INSTALL_PREFIX}/../nvidia/*/lib")
  set(_option "")
  if(_dirs)
    list(JOIN _dirs ":" _path)
    set(_option "LINKER:-rpath-link,${_path}")
  endif()
  set(${out_var} "${_option}" PARENT_SCOPE)
endfunction()
