# The ExecuTorch kernel library (executorch_kernels/) and its C++ runner (executorch_examples/), built
# where ExecuTorch's CMake package is found: executorch_DIR, else the one inside the `executorch`
# Python package of HARDSIGMOID_OPS_PYTHON (pip's wheel ships it, with the runtime's headers and
# libexecutorch.so). HARDSIGMOID_OPS_WITH_EXECUTORCH: AUTO (build where found), ON (an error where
# not), OFF.
set(HARDSIGMOID_OPS_WITH_EXECUTORCH AUTO CACHE STRING
    "Build the ExecuTorch kernel library: AUTO (where ExecuTorch is found), ON, OFF")
set(HARDSIGMOID_OPS_EXECUTORCH_FOUND OFF)
if(NOT HARDSIGMOID_OPS_WITH_EXECUTORCH STREQUAL OFF)
  set(_python "${HARDSIGMOID_OPS_PYTHON}")
  if(SKBUILD)
    set(_python "${Python_EXECUTABLE}")
  endif()
  # Found without importing it (executorch's import pulls in torch).
  execute_process(
    COMMAND "${_python}" -c "import importlib.util as u; s = u.find_spec('executorch'); \
print(s.submodule_search_locations[0] if s else '', end='')"
    OUTPUT_VARIABLE _executorch_python_dir ERROR_QUIET)
  find_package(executorch CONFIG QUIET
               PATHS "${_executorch_python_dir}/lib/cmake/executorch" NO_DEFAULT_PATH)
  find_library(HARDSIGMOID_OPS_EXECUTORCH_RUNTIME executorch
               PATHS "${EXECUTORCH_RUNTIME_LIBRARY_DIR}" NO_DEFAULT_PATH)
  if(EXECUTORCH_FOUND AND EXECUTORCH_INCLUDE_DIRS AND HARDSIGMOID_OPS_EXECUTORCH_RUNTIME)
    set(HARDSIGMOID_OPS_EXECUTORCH_FOUND ON)
    message(STATUS "ExecuTorch ${EXECUTORCH_BUILD_VERSION}: building the ExecuTorch kernel "
                   "library (${HARDSIGMOID_OPS_EXECUTORCH_RUNTIME})")
  elseif(HARDSIGMOID_OPS_WITH_EXECUTORCH STREQUAL ON)
    message(FATAL_ERROR "HARDSIGMOID_OPS_WITH_EXECUTORCH=ON but ExecuTorch's CMake package was not "
                        "found: pip install executorch, or pass -Dexecutorch_DIR=DIR")
  else()
    message(STATUS "ExecuTorch not found (no executorch package for ${_python}, no "
                   "executorch_DIR): the ExecuTorch kernel library is not built")
  endif()
endif()

if(HARDSIGMOID_OPS_EXECUTORCH_FOUND)
  # ExecuTorch's headers and the row loops' objects, with no libtorch: ExecuTorch's own copy of
  # c10's headers gives the Half and BFloat16 types the loops are compiled with.
  add_library(hardsigmoid_ops_executorch SHARED
    executorch_kernels/hardsigmoid_out.cpp
    executorch_kernels/row_loop_choice.cpp
    executorch_kernels/kernel_registration.cpp)
  get_property(_row_loop_objects GLOBAL PROPERTY HARDSIGMOID_OPS_ROW_LOOP_TARGETS)
  foreach(_objects IN LISTS _row_loop_objects)
    target_sources(hardsigmoid_ops_executorch PRIVATE $<TARGET_OBJECTS:${_objects}>)
  endforeach()
  target_include_directories(hardsigmoid_ops_executorch PUBLIC ${PROJECT_SOURCE_DIR})
  target_include_directories(hardsigmoid_ops_executorch SYSTEM PUBLIC ${EXECUTORCH_INCLUDE_DIRS})
  target_compile_definitions(hardsigmoid_ops_executorch PUBLIC ${EXECUTORCH_COMPILE_DEFINITIONS})
  target_compile_options(hardsigmoid_ops_executorch PRIVATE -Wall -Wextra -Werror=return-type)
  target_link_libraries(hardsigmoid_ops_executorch PUBLIC ${HARDSIGMOID_OPS_EXECUTORCH_RUNTIME})
  set_target_properties(hardsigmoid_ops_executorch PROPERTIES
    BUILD_RPATH "${EXECUTORCH_RUNTIME_LIBRARY_DIR}")
  # Its registrations run from static initialisers: a program linking it keeps it.
  target_link_options(hardsigmoid_ops_executorch INTERFACE "LINKER:--no-as-needed")
  if(HARDSIGMOID_OPS_BUILD_EXAMPLES)
    add_subdirectory(executorch_examples)
  endif()
endif()

if(HARDSIGMOID_OPS_EXECUTORCH_FOUND)
  # Installed beside libhardsigmoid_ops.so (the Python package loads it from there), finding
  # libexecutorch.so where it was linked against it, or, installed by pip, in the executorch
  # package beside this one.
  set_target_properties(hardsigmoid_ops_executorch PROPERTIES
    INSTALL_RPATH "${EXECUTORCH_RUNTIME_LIBRARY_DIR};$ORIGIN/../../executorch/lib")
  install(TARGETS hardsigmoid_ops_executorch LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
