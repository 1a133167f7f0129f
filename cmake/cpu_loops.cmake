# The CPU row loops, once per instruction set, chosen at run time as aten chooses its own.
# -fno-trapping-math: comparisons may be evaluated unconditionally (nothing reads FP exception
# flags), so the NaN-keeping selects become vector blends. -ffp-contract=off: no FMA, even where
# AVX-512 implies it. Neither changes a result.
set(_loop_flags -fno-trapping-math -ffp-contract=off)
set_source_files_properties(ops/cpu/span_kernels_portable.cpp PROPERTIES
  COMPILE_OPTIONS "${_loop_flags}")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  target_sources(hardsigmoid_ops PRIVATE ops/cpu/span_kernels_avx2.cpp ops/cpu/span_kernels_avx512.cpp)
  target_compile_definitions(hardsigmoid_ops PRIVATE HARDSIGMOID_OPS_X86_CAPABILITIES)
  set_source_files_properties(ops/cpu/span_kernels_avx2.cpp PROPERTIES
    COMPILE_OPTIONS "${_loop_flags};-mavx2;-mf16c")
  set_source_files_properties(ops/cpu/span_kernels_avx512.cpp PROPERTIES
    COMPILE_OPTIONS "${_loop_flags};-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mf16c")
endif()
