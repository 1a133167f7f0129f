# Cross-compiling for 64-bit ARM Linux with Debian's GCC cross compiler (g++-aarch64-linux-gnu),
# against an aarch64 torch wheel's libtorch (CMAKE_PREFIX_PATH). Programs built here run under
# qemu-aarch64-static (CTest and GoogleTest's discovery go through it); QEMU_LD_PREFIX names the
# root holding their loader and C library (scripts/aarch64_check.sh sets it).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static)
# Libraries, headers and CMake packages from the cross compiler's root and the paths given
# (CMAKE_PREFIX_PATH, *_DIR), never the build machine's x86-64 ones; programs (the compiler
# cache, bash) from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# CUDA for aarch64 (Grace's sbsa): the host's nvcc with this compiler as its host compiler, and a
# toolkit whose targets/aarch64-linux holds aarch64 headers and libraries, named by the
# environment's HARDSIGMOID_OPS_AARCH64_CUDA_TOOLKIT (scripts/release/aarch64_cuda_toolkit.sh
# assembles one from PyPI's aarch64 CUDA wheels). torch's FindCUDA reads CUDA_TOOLKIT_ROOT from
# the environment when cross-compiling, CMake's FindCUDAToolkit CUDAToolkit_ROOT.
if(DEFINED ENV{HARDSIGMOID_OPS_AARCH64_CUDA_TOOLKIT})
  set(_cuda_toolkit "$ENV{HARDSIGMOID_OPS_AARCH64_CUDA_TOOLKIT}")
  set(CMAKE_CUDA_COMPILER "${_cuda_toolkit}/bin/nvcc")
  set(CMAKE_CUDA_HOST_COMPILER aarch64-linux-gnu-g++)
  set(CUDAToolkit_ROOT "${_cuda_toolkit}")
  set(CUDA_TOOLKIT_ROOT_DIR "${_cuda_toolkit}" CACHE PATH "the aarch64 CUDA toolkit")
  set(ENV{CUDA_TOOLKIT_ROOT} "${_cuda_toolkit}")
endif()
