# HardsigmoidOps in the release wheel, which holds one library per torch release
# (hardsigmoid_ops/releases/torchX.Y-cuda and -cpu, on x86-64 and aarch64): this file, installed by
# scripts/release/merge_release_wheels.py as the package's lib/cmake/HardsigmoidOps/
# HardsigmoidOpsConfig.cmake, hands find_package(HardsigmoidOps) to the CMake package of the
# library built against the torch that find_package(Torch) finds, by the rules of the package's
# loader (python/hardsigmoid_ops/_library.py), read from that torch's own torch/version.py (its
# CMake package reports neither the local label nor the CUDA version torch was built with): the
# CUDA build where that torch has CUDA, of the same CUDA major, the build without CUDA where it
# has none; nothing for a ROCm or XPU build, a pre-release, nightly or source build, or another
# release, with a message saying why.
#   find_package(HardsigmoidOps REQUIRED)
#   target_link_libraries(app PRIVATE HardsigmoidOps::hardsigmoid_ops)
include(CMakeFindDependencyMacro)
find_dependency(Torch)
get_filename_component(_hardsigmoid_ops_releases "${CMAKE_CURRENT_LIST_DIR}/../../../releases"
                       ABSOLUTE)

# torch/version.py's fields: __version__ = '2.11.0+cu130', cuda: Optional[str] = '13.0', ...
set(_hardsigmoid_ops_torch_version "${Torch_VERSION}")
foreach(_field cuda hip xpu)
  set(_hardsigmoid_ops_torch_${_field} "")
endforeach()
if(EXISTS "${TORCH_INSTALL_PREFIX}/version.py")
  file(STRINGS "${TORCH_INSTALL_PREFIX}/version.py" _hardsigmoid_ops_lines)
  foreach(_line IN LISTS _hardsigmoid_ops_lines)
    if(_line MATCHES "^__version__ = '([^']+)'")
      set(_hardsigmoid_ops_torch_version "${CMAKE_MATCH_1}")
    elseif(_line MATCHES "^(cuda|hip|xpu)[^=]* = '([^']+)'")
      set(_hardsigmoid_ops_torch_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    endif()
  endforeach()
elseif(CAFFE2_USE_CUDA)
  # A torch without version.py (a libtorch archive): its CMake package's CUDA.
  set(_hardsigmoid_ops_torch_cuda "${CUDA_VERSION}")
endif()
string(REGEX MATCH "^[0-9]+\\.[0-9]+" _hardsigmoid_ops_release "${_hardsigmoid_ops_torch_version}")
set(_hardsigmoid_ops_variant cpu)
if(_hardsigmoid_ops_torch_cuda)
  set(_hardsigmoid_ops_variant cuda)
endif()
set(_hardsigmoid_ops_lib
    "${_hardsigmoid_ops_releases}/torch${_hardsigmoid_ops_release}-${_hardsigmoid_ops_variant}/lib")
set(_hardsigmoid_ops_config "")
set(_hardsigmoid_ops_why "")
if(_hardsigmoid_ops_torch_hip)
  set(_hardsigmoid_ops_why ", a ROCm build (HIP ${_hardsigmoid_ops_torch_hip})")
elseif(_hardsigmoid_ops_torch_xpu)
  set(_hardsigmoid_ops_why ", an XPU build (XPU ${_hardsigmoid_ops_torch_xpu})")
elseif(NOT _hardsigmoid_ops_torch_version MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+(\\+[A-Za-z0-9_.]+)?$")
  set(_hardsigmoid_ops_why ", a pre-release, nightly or source build")
elseif(NOT EXISTS "${_hardsigmoid_ops_lib}/cmake/HardsigmoidOps/HardsigmoidOpsConfig.cmake")
  if(_hardsigmoid_ops_torch_cuda)
    set(_hardsigmoid_ops_why " (CUDA ${_hardsigmoid_ops_torch_cuda})")
  endif()
else()
  set(_hardsigmoid_ops_config "${_hardsigmoid_ops_lib}/cmake/HardsigmoidOps/HardsigmoidOpsConfig.cmake")
  if(_hardsigmoid_ops_torch_cuda)
    # The library's CUDA runtime must be the torch's: a CUDA 12 torch cannot use a CUDA 13 build.
    set(_hardsigmoid_ops_built_cuda "")
    if(EXISTS "${_hardsigmoid_ops_lib}/hardsigmoid_ops_build.json")
      file(READ "${_hardsigmoid_ops_lib}/hardsigmoid_ops_build.json" _hardsigmoid_ops_record)
      string(JSON _hardsigmoid_ops_built_cuda ERROR_VARIABLE _hardsigmoid_ops_json_error
             GET "${_hardsigmoid_ops_record}" cuda_version)
    endif()
    string(REGEX MATCH "^[0-9]+" _hardsigmoid_ops_built_major "${_hardsigmoid_ops_built_cuda}")
    string(REGEX MATCH "^[0-9]+" _hardsigmoid_ops_torch_major "${_hardsigmoid_ops_torch_cuda}")
    if(NOT _hardsigmoid_ops_built_major STREQUAL _hardsigmoid_ops_torch_major)
      set(_hardsigmoid_ops_config "")
      string(CONCAT _hardsigmoid_ops_why ", a CUDA ${_hardsigmoid_ops_torch_cuda} build: the "
             "package's CUDA library for it is a CUDA '${_hardsigmoid_ops_built_cuda}' build")
    endif()
  endif()
endif()
if(NOT _hardsigmoid_ops_config)
  file(GLOB _hardsigmoid_ops_held RELATIVE "${_hardsigmoid_ops_releases}"
       "${_hardsigmoid_ops_releases}/torch*")
  list(JOIN _hardsigmoid_ops_held ", " _hardsigmoid_ops_held)
  set(HardsigmoidOps_FOUND FALSE)
  string(CONCAT HardsigmoidOps_NOT_FOUND_MESSAGE
         "this package holds libraries for ${_hardsigmoid_ops_held}; torch "
         "${_hardsigmoid_ops_torch_version}${_hardsigmoid_ops_why} was found, which none of them "
         "serves (configure against a torch of those releases, or build the library from source "
         "against this torch)")
  return()
endif()
include("${_hardsigmoid_ops_config}")
