# The CUDA code the library holds, read from the -gencode flags torch's CMake chose
# (NVCC_FLAGS_EXTRA, from TORCH_CUDA_ARCH_LIST or the GPU it detected): SASS for each
# "code=sm_XY", PTX for each "code=compute_XY". The CUDA entry points name them in the error a GPU
# without code of its own gets (ops/cuda/architecture_check.cu), and the build record lists them
# for the Python package (hardsigmoid_ops.build_info()).
#   HARDSIGMOID_OPS_CUDA_SASS  e.g. 75;80;86;90;100;120
#   HARDSIGMOID_OPS_CUDA_PTX   e.g. 120
set(HARDSIGMOID_OPS_CUDA_SASS "")
set(HARDSIGMOID_OPS_CUDA_PTX "")
if(HARDSIGMOID_OPS_WITH_CUDA)
  foreach(_flag IN LISTS NVCC_FLAGS_EXTRA)
    if(_flag MATCHES "code=sm_([0-9]+[a-z]?)")
      list(APPEND HARDSIGMOID_OPS_CUDA_SASS "${CMAKE_MATCH_1}")
    elseif(_flag MATCHES "code=compute_([0-9]+[a-z]?)")
      list(APPEND HARDSIGMOID_OPS_CUDA_PTX "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES HARDSIGMOID_OPS_CUDA_SASS)
  list(REMOVE_DUPLICATES HARDSIGMOID_OPS_CUDA_PTX)
  if(NOT HARDSIGMOID_OPS_CUDA_SASS AND NOT HARDSIGMOID_OPS_CUDA_PTX)
    message(FATAL_ERROR "No -gencode flags from torch's CMake (NVCC_FLAGS_EXTRA: "
                        "'${NVCC_FLAGS_EXTRA}'): set TORCH_CUDA_ARCH_LIST, e.g. 9.0")
  endif()
  message(STATUS "CUDA code: SASS ${HARDSIGMOID_OPS_CUDA_SASS}; PTX ${HARDSIGMOID_OPS_CUDA_PTX}")
endif()

# "sm_75 sm_80", or "none".
function(hardsigmoid_ops_cuda_code_names out prefix)
  set(_names "")
  foreach(_arch IN LISTS ARGN)
    list(APPEND _names "${prefix}_${_arch}")
  endforeach()
  if(NOT _names)
    set(_names none)
  endif()
  list(JOIN _names " " _joined)
  set(${out} "${_joined}" PARENT_SCOPE)
endfunction()

# A JSON array of strings: ["sm_75", "sm_80"].
function(hardsigmoid_ops_json_names out prefix)
  set(_items "")
  foreach(_arch IN LISTS ARGN)
    list(APPEND _items "\"${prefix}_${_arch}\"")
  endforeach()
  list(JOIN _items ", " _joined)
  set(${out} "[${_joined}]" PARENT_SCOPE)
endfunction()
