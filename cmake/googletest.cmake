# An installed GoogleTest, or its sources (Debian's /usr/src/googletest, say) on a machine
# where none is installed.
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  if(NOT HARDSIGMOID_OPS_GTEST_SOURCE_DIR)
    message(FATAL_ERROR "GoogleTest not found: install it, set HARDSIGMOID_OPS_GTEST_SOURCE_DIR "
                        "to its sources, or set HARDSIGMOID_OPS_BUILD_TESTS=OFF")
  endif()
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory(${HARDSIGMOID_OPS_GTEST_SOURCE_DIR} googletest EXCLUDE_FROM_ALL)
  # GoogleTest 1.11 and later name their targets so themselves.
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()
