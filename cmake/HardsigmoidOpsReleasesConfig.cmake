# HardsigmoidOps in the release wheel, which holds one library per torch release
# (hardsigmoid_ops/releases/torchX.Y-cuda and -cpu): this file, installed by
# scripts/release/merge_release_wheels.py as the package's lib/cmake/HardsigmoidOps/
# HardsigmoidOpsConfig.cmake, hands find_package(HardsigmoidOps) to the CMake package of the
# library built against the torch that find_package(Torch) finds: the CUDA build where that torch
# has CUDA and the wheel holds one, else the build without CUDA.
#   find_package(HardsigmoidOps REQUIRED)
#   target_link_libraries(app PRIVATE HardsigmoidOps::hardsigmoid_ops)
include(CMakeFindDependencyMacro)
find_dependency(Torch)
string(REGEX MATCH "^[0-9]+\\.[0-9]+" _hardsigmoid_ops_release "${Torch_VERSION}")
get_filename_component(_hardsigmoid_ops_releases "${CMAKE_CURRENT_LIST_DIR}/../../../releases"
                       ABSOLUTE)
set(_hardsigmoid_ops_variants cpu)
if(CAFFE2_USE_CUDA)
  set(_hardsigmoid_ops_variants cuda cpu)
endif()
set(_hardsigmoid_ops_config "")
foreach(_variant IN LISTS _hardsigmoid_ops_variants)
  set(_candidate "${_hardsigmoid_ops_releases}/torch${_hardsigmoid_ops_release}-${_variant}/lib/cmake/HardsigmoidOps/HardsigmoidOpsConfig.cmake")
  if(NOT _hardsigmoid_ops_config AND EXISTS "${_candidate}")
    set(_hardsigmoid_ops_config "${_candidate}")
  endif()
endforeach()
if(NOT _hardsigmoid_ops_config)
  file(GLOB _hardsigmoid_ops_held RELATIVE "${_hardsigmoid_ops_releases}"
       "${_hardsigmoid_ops_releases}/torch*")
  set(HardsigmoidOps_FOUND FALSE)
  set(HardsigmoidOps_NOT_FOUND_MESSAGE
      "this package holds libraries for ${_hardsigmoid_ops_held}; torch ${Torch_VERSION} was found, "
      "which none of them serves (configure against a torch of those releases, or build the "
      "library from source)")
  return()
endif()
include("${_hardsigmoid_ops_config}")
