# shellcheck shell=bash
# Sourced by run_tests.sh and torch_versions.sh: every CMake build they start, the ones pip and
# the tests start included, compiles through ccache (CMake reads CMAKE_<LANG>_COMPILER_LAUNCHER
# from the environment), so that a translation unit compiled once with the same compiler, flags
# and headers is not compiled again: the package the pip tests build is the library just built.
# The cache lives in the user's cache folder beside the aarch64 root and wheels
# (~/.cache/hardsigmoid_ops/ccache, or $CCACHE_DIR), so that a fresh clone in the same folder
# (CI's) compiles only what changed: ccache keys each object on the compiler, its flags and the
# preprocessed source, and replays the warnings of a cached compilation.
if command -v ccache >/dev/null; then
  export CCACHE_DIR="${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hardsigmoid_ops/ccache}"
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
  # ccache would otherwise hash the directory an nvcc compilation runs in: pip's build, in a
  # temporary directory, would compile the CUDA kernels again (40 s).
  export CCACHE_NOHASHDIR=true
  # One compiler name for every build: CMake alone picks /usr/bin/c++, scikit-build-core (pip's
  # build) g++, and ccache keys on the name: pip's build would compile the library again (minutes).
  export CC="${CC:-gcc}" CXX="${CXX:-g++}"
fi
