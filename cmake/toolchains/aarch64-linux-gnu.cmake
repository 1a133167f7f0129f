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
