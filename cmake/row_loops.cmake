# The CPU row loops (ops/cpu/row_loops.cpp), compiled once per instruction set as aten compiles
# its own per-ISA kernels: CPU_CAPABILITY names the namespace and selects at::vec::Vectorized's
# implementation, with aten's flags for it. -mf16c also under AVX512: aten's hardsigmoid runs its
# AVX2 kernel there, whose scalar half conversions are F16C's. -ffp-contract=off: no FMA anywhere
# (the formulas leave none to form; this keeps it so).
# With them, ops/cpu/row_loop_tables.cpp (which loops this processor can run). All are object
# libraries, named in the global property HARDSIGMOID_OPS_ROW_LOOP_TARGETS, and need nothing of
# libtorch to link (only its headers to compile): the ExecuTorch kernel library links them too.
function(hardsigmoid_ops_add_row_loops target)
  set(_capabilities DEFAULT)
  set(_flags_DEFAULT "")
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
    list(APPEND _capabilities AVX2 AVX512)
    set(_flags_AVX2 -mavx2 -mfma -mf16c)
    # GCC 12 warns -Wmaybe-uninitialized inside its own avx512fintrin.h (the undefined
    # pass-through operand of _mm512_cvtepu16_epi32 and others) wherever at::vec's AVX512
    # bfloat16 conversions and clamps are inlined: 55 warnings in this file, none in its code.
    set(_flags_AVX512 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c
                      -Wno-maybe-uninitialized)
    set(_x86 HARDSIGMOID_OPS_X86_CAPABILITIES)
  endif()
  set(_tables ${target}_row_loop_tables)
  add_library(${_tables} OBJECT ops/cpu/row_loop_tables.cpp)
  target_link_libraries(${_tables} PRIVATE ${TORCH_LIBRARIES})
  target_include_directories(${_tables} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${_tables} PRIVATE ${_x86})
  target_compile_options(${_tables} PRIVATE -Wall -Wextra)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:${_tables}>)
  target_compile_definitions(${target} PRIVATE ${_x86})
  set_property(GLOBAL APPEND PROPERTY HARDSIGMOID_OPS_ROW_LOOP_TARGETS ${_tables})
  foreach(capability IN LISTS _capabilities)
    set(_objects ${target}_row_loops_${capability})
    add_library(${_objects} OBJECT ops/cpu/row_loops.cpp)
    target_link_libraries(${_objects} PRIVATE ${TORCH_LIBRARIES})
    target_include_directories(${_objects} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${_objects} PRIVATE CPU_CAPABILITY=${capability}
                                                   CPU_CAPABILITY_${capability})
    target_compile_options(${_objects} PRIVATE -Wall -Wextra ${_flags_${capability}}
                                               -ffp-contract=off -fno-trapping-math)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${_objects}>)
    set_property(GLOBAL APPEND PROPERTY HARDSIGMOID_OPS_ROW_LOOP_TARGETS ${_objects})
  endforeach()
endfunction()
