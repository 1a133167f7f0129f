# `cmake --install` makes a CMake package: include/hardsigmoid_ops/hardsigmoid.h, the library, the
# build record hardsigmoid_ops_build.json beside it, and lib/cmake/HardsigmoidOps/ with
# HardsigmoidOpsConfig.cmake, its version file and the imported target
# HardsigmoidOps::hardsigmoid_ops (which carries the link option that keeps the registrations).
# Consumers: find_package(HardsigmoidOps) with torch's prefix on the search path. pip's build
# installs the same tree into the Python package (pyproject.toml).
include(CMakePackageConfigHelpers)

set(HARDSIGMOID_OPS_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/HardsigmoidOps")
# The installed library finds libtorch (and the CUDA libraries) where it was linked against them,
# or, installed by pip as site-packages/hardsigmoid_ops/lib, in the torch beside it. A release
# wheel's library (HARDSIGMOID_OPS_RELEASE_WHEEL, set by scripts/release/build_wheels.sh, which installs
# each release's tree as site-packages/hardsigmoid_ops/releases/torchX.Y-VARIANT) names no folder
# of the machine that built it: only the torch wheel beside it and that wheel's CUDA runtime
# (nvidia/cuXY/lib).
if(HARDSIGMOID_OPS_RELEASE_WHEEL)
  set(_site "$ORIGIN/../../../..")
  set(_rpath "${_site}/torch/lib")
  if(HARDSIGMOID_OPS_WITH_CUDA)
    list(APPEND _rpath "${_site}/nvidia/cu${CUDAToolkit_VERSION_MAJOR}/lib")
  endif()
  set_target_properties(hardsigmoid_ops PROPERTIES INSTALL_RPATH "${_rpath}")
else()
  set_target_properties(hardsigmoid_ops PROPERTIES
    INSTALL_RPATH "${TORCH_INSTALL_PREFIX}/lib;$ORIGIN/../../torch/lib"
    INSTALL_RPATH_USE_LINK_PATH ON)
endif()

# The build record, read by the Python package before it loads the library (so that another torch
# gets an error naming both instead of a missing symbol) and by hardsigmoid_ops.build_info():
# torch's release and its full version from its version.py (2.12.0.dev20260101+cu130: a
# pre-release is served by nothing but itself), the CUDA version of the kernels (a torch of
# another CUDA major loads another CUDA runtime), the CUDA code held
# (cmake/cuda_architectures.cmake) and the processor.
file(STRINGS "${TORCH_INSTALL_PREFIX}/version.py" _torch_version_line REGEX "^__version__ = ")
string(REGEX REPLACE "^__version__ = '([^']*)'.*" "\\1" _torch_full_version "${_torch_version_line}")
if(HARDSIGMOID_OPS_WITH_CUDA)
  set(_with_cuda true)
  set(_cuda_version "\"${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}\"")
else()
  set(_with_cuda false)
  set(_cuda_version null)
endif()
hardsigmoid_ops_json_names(_sass sm ${HARDSIGMOID_OPS_CUDA_SASS})
hardsigmoid_ops_json_names(_ptx compute ${HARDSIGMOID_OPS_CUDA_PTX})
set(_build_record "$<TARGET_FILE_DIR:hardsigmoid_ops>/hardsigmoid_ops_build.json")
file(GENERATE OUTPUT "${_build_record}"
  CONTENT "{\"torch_version\": \"${Torch_VERSION}\", \
\"torch_full_version\": \"${_torch_full_version}\", \"cuda\": ${_with_cuda}, \
\"cuda_version\": ${_cuda_version}, \"cuda_sass\": ${_sass}, \"cuda_ptx\": ${_ptx}, \
\"processor\": \"${CMAKE_SYSTEM_PROCESSOR}\"}\n")

install(TARGETS hardsigmoid_ops EXPORT HardsigmoidOpsTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES "${_build_record}" DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ops/hardsigmoid.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hardsigmoid_ops)
install(EXPORT HardsigmoidOpsTargets NAMESPACE HardsigmoidOps::
        DESTINATION ${HARDSIGMOID_OPS_CMAKE_DIR})

configure_package_config_file(cmake/HardsigmoidOpsConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/HardsigmoidOpsConfig.cmake
  INSTALL_DESTINATION ${HARDSIGMOID_OPS_CMAKE_DIR})
# One library is built against one torch: a consumer should take the same minor version.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/HardsigmoidOpsConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/HardsigmoidOpsConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/HardsigmoidOpsConfigVersion.cmake
              cmake/torch_wheel_libs.cmake
        DESTINATION ${HARDSIGMOID_OPS_CMAKE_DIR})
