# HardsigmoidOps in the release wheel, which holds one library per torch release
# (hardsigmoid_ops/releases/torchX.Y-cuda and -cpu, on x86-64 and aarch64): this file, installed by
# scripts/release/merge_release_wheels.py as the package's lib/cmake/HardsigmoidOps/
# HardsigmoidOpsConfig.cmake, hands find_package(HardsigmoidOps) to the CMake package of the
# library built against the torch that find_package(Torch) finds: the CUDA build where that torch
# has CUDA (of the same CUDA major, which the build record beside the library names), the build
# without CUDA where it has none; the package's loader chooses alike (_library.py).
#   find_package(HardsigmoidOps REQUIRED)
#   target_link_libraries(app PRIVATE HardsigmoidOps::hardsigmoid_ops)
include(CMakeFindDependencyMacro)
find_dependency(Torch)
string(REGEX MATCH "^[0-9]+\\.[0-9]+" _hardsigmoid_ops_release "${Torch_VERSION}")
get_filename_component(_hardsigmoid_ops_releases "${CMAKE_CURRENT_LIST_DIR}/../../../releases"
                       ABSOLUTE)
set(_hardsigmoid_ops_variant cpu)
if(CAFFE2_USE_CUDA)
  set(_hardsigmoid_ops_variant cuda)
endif()
set(_hardsigmoid_ops_lib "${_hardsigmoid_ops_releases}/torch${_hardsigmoid_ops_release}-${_hardsigmoid_ops_variant}/lib")
set(_hardsigmoid_ops_config "${_hardsigmoid_ops_lib}/cmake/HardsigmoidOps/HardsigmoidOpsConfig.cmake")
set(_hardsigmoid_ops_why "")
if(NOT EXISTS "${_hardsigmoid_ops_config}")
  set(_hardsigmoid_ops_config "")
elseif(CAFFE2_USE_CUDA AND EXISTS "${_hardsigmoid_ops_lib}/hardsigmoid_ops_build.json")
  # The library's CUDA runtime must be the torch's: a CUDA 12 torch cannot use a CUDA 13 build.
  file(READ "${_hardsigmoid_ops_lib}/hardsigmoid_ops_build.json" _hardsigmoid_ops_record)
  string(JSON _hardsigmoid_ops_built_cuda GET "${_hardsigmoid_ops_record}" cuda_version)
  string(REGEX MATCH "^[0-9]+" _hardsigmoid_ops_built_major "${_hardsigmoid_ops_built_cuda}")
  string(REGEX MATCH "^[0-9]+" _hardsigmoid_ops_torch_major "${CUDA_VERSION}")
  if(NOT _hardsigmoid_ops_built_major STREQUAL _hardsigmoid_ops_torch_major)
    set(_hardsigmoid_ops_config "")
    string(CONCAT _hardsigmoid_ops_why " (a CUDA ${CUDA_VERSION} build; the package's CUDA "
           "library for it is a CUDA ${_hardsigmoid_ops_built_cuda} build)")
  endif()
endif()
if(NOT _hardsigmoid_ops_config)
  file(GLOB _hardsigmoid_ops_held RELATIVE "${_hardsigmoid_ops_releases}"
       "${_hardsigmoid_ops_releases}/torch*")
  set(HardsigmoidOps_FOUND FALSE)
  string(CONCAT HardsigmoidOps_NOT_FOUND_MESSAGE
         "this package holds libraries for ${_hardsigmoid_ops_held}; torch ${Torch_VERSION}"
         "${_hardsigmoid_ops_why} was found, which none of them serves (configure against a "
         "torch of those releases, or build the library from source)")
  return()
endif()
include("${_hardsigmoid_ops_config}")
