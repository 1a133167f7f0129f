# Tests that cross the process boundary, run by CTest beside the GoogleTest cases.

# Python saves TorchScript models using the ops; a C++ program loads and checks them.
add_test(NAME torchscript_round_trip
  COMMAND bash ${PROJECT_SOURCE_DIR}/torchscript_examples/round_trip.sh ${HARDSIGMOID_OPS_PYTHON}
          $<TARGET_FILE:hardsigmoid_ops> $<TARGET_FILE:run_torchscript_models>
          ${CMAKE_CURRENT_BINARY_DIR}/torchscript_models)

# Python exports and compiles (AOTInductor) a model using the ops; a C++ program loads the package
# with AOTIModelPackageLoader and checks it.
add_test(NAME aoti_package_round_trip
  COMMAND bash ${PROJECT_SOURCE_DIR}/export_examples/round_trip.sh ${HARDSIGMOID_OPS_PYTHON}
          $<TARGET_FILE:hardsigmoid_ops> $<TARGET_FILE:run_aoti_package>
          ${CMAKE_CURRENT_BINARY_DIR}/exported_models)
set_tests_properties(aoti_package_round_trip PROPERTIES TIMEOUT 900)
# The same compiled for CUDA; skipped (exit status 77, shown as skipped) without a GPU.
add_test(NAME aoti_package_round_trip_cuda
  COMMAND bash ${PROJECT_SOURCE_DIR}/export_examples/round_trip.sh ${HARDSIGMOID_OPS_PYTHON}
          $<TARGET_FILE:hardsigmoid_ops> $<TARGET_FILE:run_aoti_package>
          ${CMAKE_CURRENT_BINARY_DIR}/exported_models_cuda cuda)
set_tests_properties(aoti_package_round_trip_cuda PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77)

# `cmake --install` into a temporary prefix, then a separate project finds, links and runs it.
add_test(NAME installed_package_consumer
  COMMAND bash ${PROJECT_SOURCE_DIR}/cpp_tests/downstream_package/build_and_run.sh
          ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/downstream ${CMAKE_PREFIX_PATH})

# Python exports a model using the ops to an ExecuTorch program; a C++ program with no libtorch
# (ExecuTorch's runtime and the library's ExecuTorch kernels) runs it, matching eager aten's bytes.
if(TARGET run_pte)
  add_test(NAME executorch_round_trip
    COMMAND bash ${PROJECT_SOURCE_DIR}/executorch_examples/round_trip.sh ${HARDSIGMOID_OPS_PYTHON}
            $<TARGET_FILE:hardsigmoid_ops> $<TARGET_FILE:run_pte>
            ${CMAKE_CURRENT_BINARY_DIR}/executorch_programs)
  set_tests_properties(executorch_round_trip PROPERTIES TIMEOUT 600)
endif()
