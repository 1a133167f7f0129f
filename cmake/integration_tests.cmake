# Tests that cross the process boundary, run by CTest beside the GoogleTest cases.

# Python saves TorchScript models using the ops; a C++ program loads and checks them.
add_test(NAME torchscript_round_trip
  COMMAND bash ${PROJECT_SOURCE_DIR}/torchscript_examples/round_trip.sh ${HARDSIGMOID_OPS_PYTHON}
          $<TARGET_FILE:hardsigmoid_ops> $<TARGET_FILE:run_torchscript_models>
          ${CMAKE_CURRENT_BINARY_DIR}/torchscript_models)

# `cmake --install` into a temporary prefix, then a separate project finds, links and runs it.
add_test(NAME installed_package_consumer
  COMMAND bash ${PROJECT_SOURCE_DIR}/cpp_tests/downstream_package/build_and_run.sh
          ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/downstream ${CMAKE_PREFIX_PATH})
