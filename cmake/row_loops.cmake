# The CPU loops (ops/cpu/row_loops.cpp, ops/cpu/quantized/quantized_loops.cpp), compiled once per
# CPU capability as aten compiles its own per-ISA kernels (its cmake/Codegen.cmake):
# CPU_CAPABILITY names the namespace and selects at::vec::Vectorized's implementation, with aten's
# flags for it; each unit registers its loops in the capability table (ops/cpu/capability.h). This
# file is the one place that knows which capabilities an architecture's build has, and their flags.
# x86-64: DEFAULT, AVX2, AVX512. -mf16c also under AVX512: aten's hardsigmoid runs its AVX2 kernel
# there, whose scalar half conversions are F16C's. -ffp-contract=off: no FMA anywhere (the
# formulas leave none to form; this keeps it so).
# aarch64: DEFAULT (NEON, aten's -O3 alone) and SVE256. GCC's default contraction stays on, as in
# aten's build: under DEFAULT it fuses a Vectorized a * b + c into one fmla and aten's own kernels
# are compiled the same way, so the bits agree only if ours are too. Every unit including
# DispatchStub.h needs HAVE_SVE*_CPU_DEFINITION and HAVE_ARM_BF16_CPU_DEFINITION, as aten's build
# had, for at::native::CPUCapability to have aten's values (SVE256 = 1).
# With the row loops, ops/cpu/capability.cpp (the table). All are object libraries, whose objects
# every target linking `target` links directly (its interface sources: the registrations are
# static initialisers, which a static library's archive would drop unreferenced). The row loops
# and the table, named in the global property HARDSIGMOID_OPS_ROW_LOOP_TARGETS, need nothing of
# libtorch to link (only its headers to compile): the ExecuTorch kernel library links them too.
set(_hardsigmoid_ops_capabilities DEFAULT)
set(_hardsigmoid_ops_flags_DEFAULT "")
# aten registers its quantized kernels for fewer: on x86-64 DEFAULT and AVX2 only (an AVX512
# process runs the AVX2 ones).
set(_hardsigmoid_ops_quantized_capabilities DEFAULT)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND _hardsigmoid_ops_capabilities AVX2 AVX512)
  list(APPEND _hardsigmoid_ops_quantized_capabilities AVX2)
  set(_hardsigmoid_ops_flags_AVX2 -mavx2 -mfma -mf16c)
  # GCC 12 warns -Wmaybe-uninitialized inside its own avx512fintrin.h (the undefined
  # pass-through operand of _mm512_cvtepu16_epi32 and others) wherever at::vec's AVX512
  # bfloat16 conversions and clamps are inlined: 55 warnings in this file, none in its code.
  set(_hardsigmoid_ops_flags_AVX512 -mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma -mf16c
                                    -Wno-maybe-uninitialized)
  set(_hardsigmoid_ops_contraction -ffp-contract=off)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  list(APPEND _hardsigmoid_ops_capabilities SVE256)
  list(APPEND _hardsigmoid_ops_quantized_capabilities SVE256)
  set(_hardsigmoid_ops_flags_SVE256 -march=armv8-a+sve+bf16 -D__ARM_FEATURE_BF16
                                    -DCPU_CAPABILITY_SVE -msve-vector-bits=256)
  set(_hardsigmoid_ops_contraction "")
  add_compile_definitions(HAVE_SVE_CPU_DEFINITION HAVE_SVE256_CPU_DEFINITION
                          HAVE_ARM_BF16_CPU_DEFINITION)
else()
  set(_hardsigmoid_ops_contraction -ffp-contract=off)
endif()

# One object library of `source` per capability in `capabilities`, compiled into `target`.
function(_hardsigmoid_ops_add_per_capability target name source capabilities)
  foreach(capability IN LISTS capabilities)
    set(_objects ${target}_${name}_${capability})
    add_library(${_objects} OBJECT ${source})
    target_link_libraries(${_objects} PRIVATE ${TORCH_LIBRARIES})
    target_include_directories(${_objects} PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(${_objects} PRIVATE CPU_CAPABILITY=${capability}
                                                   CPU_CAPABILITY_${capability})
    # -Wno-psabi: GCC notes that passing a vector by value changed ABI in GCC 4.6, for
    # at::vec types handed to lambdas in one object; nothing here crosses that boundary.
    target_compile_options(${_objects} PRIVATE -Wall -Wextra -Wno-psabi
                                               ${_hardsigmoid_ops_flags_${capability}}
                                               ${_hardsigmoid_ops_contraction} -fno-trapping-math)
    target_sources(${target} INTERFACE $<TARGET_OBJECTS:${_objects}>)
    list(APPEND _all ${_objects})
  endforeach()
  set(_per_capability_targets ${_all} PARENT_SCOPE)
endfunction()

function(hardsigmoid_ops_add_row_loops target)
  set(_table ${target}_capability_table)
  add_library(${_table} OBJECT ops/cpu/capability.cpp)
  target_include_directories(${_table} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${_table} PRIVATE -Wall -Wextra)
  target_sources(${target} INTERFACE $<TARGET_OBJECTS:${_table}>)
  set_property(GLOBAL APPEND PROPERTY HARDSIGMOID_OPS_ROW_LOOP_TARGETS ${_table})
  _hardsigmoid_ops_add_per_capability(${target} row_loops ops/cpu/row_loops.cpp
                                      "${_hardsigmoid_ops_capabilities}")
  set_property(GLOBAL APPEND PROPERTY HARDSIGMOID_OPS_ROW_LOOP_TARGETS ${_per_capability_targets})
endfunction()

# The quantized kernel's loops (ops/cpu/quantized/quantized_loops.cpp), per capability as the row loops
# with their flags, for the capabilities aten has quantized kernels for. They need libtorch
# (TensorIterator): the ExecuTorch kernel library does not link them. Named in the global
# property HARDSIGMOID_OPS_QUANTIZED_LOOP_TARGETS.
function(hardsigmoid_ops_add_quantized_loops target)
  _hardsigmoid_ops_add_per_capability(${target} quantized_loops ops/cpu/quantized/quantized_loops.cpp
                                      "${_hardsigmoid_ops_quantized_capabilities}")
  set_property(GLOBAL APPEND PROPERTY HARDSIGMOID_OPS_QUANTIZED_LOOP_TARGETS
                                      ${_per_capability_targets})
endfunction()
