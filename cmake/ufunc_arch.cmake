# Per-instruction-set kernels: one source compiled once per x86 instruction set,
# each copy in its own namespace (UFUNC_ARCH_NAMESPACE), so the library carries
# SSE4.2, AVX2 and AVX-512 code and picks at run time, without -march=native.
include_guard(GLOBAL)

set(UFUNC_X86_ARCHS
  "baseline|UFUNC_ARCH_BASELINE|"
  "sse4_2|UFUNC_ARCH_SSE4_2|-msse4.2"
  "avx2|UFUNC_ARCH_AVX2|-mavx2,-mfma,-mf16c"
  "avx512bw|UFUNC_ARCH_AVX512BW|-mavx512f,-mavx512cd,-mavx512dq,-mavx512bw,-mavx512vl,-mfma,-mf16c")

# Development builds can keep only some instruction sets (the baseline is always
# built): -DUFUNC_SIMD_ARCHS=baseline compiles the kernels once instead of four times.
set(UFUNC_SIMD_ARCHS "baseline;sse4_2;avx2;avx512bw" CACHE STRING "x86 instruction sets to compile kernels for")
# Must match ufuncs::kernel_parts (ufuncs/src/kernel_table.hpp).
set(UFUNC_KERNEL_PARTS 4)

# The CUDA loops of the built-in ufuncs, one translation unit per part, in `layer`.
# Must match ufuncs::cuda_kernel_parts.
set(UFUNC_CUDA_KERNEL_PARTS 16)
function(ufunc_add_cuda_kernels layer source)
  math(EXPR last_part "${UFUNC_CUDA_KERNEL_PARTS} - 1")
  foreach(part RANGE ${last_part})
    set(unit ${CMAKE_CURRENT_BINARY_DIR}/ufunc_kernels_cuda_p${part}.cu)
    file(CONFIGURE OUTPUT ${unit} CONTENT "#define UFUNC_KERNEL_PART ${part}\n#include \"${source}\"\n")
    target_sources(${layer} PRIVATE ${unit})
  endforeach()
endfunction()

# ufunc_add_arch_kernels(<layer> <library> <source>...): the copies are compiled with
# the layer's include directories and settings, their objects go into the library, and
# the layer learns which copies exist (UFUNC_HAVE_ARCH_<name>).
function(ufunc_add_arch_kernels layer library)
  set(sources ${ARGN})
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
    set(archs "")
    foreach(entry IN LISTS UFUNC_X86_ARCHS)
      string(REGEX MATCH "^[^|]+" name "${entry}")
      if(name STREQUAL "baseline" OR name IN_LIST UFUNC_SIMD_ARCHS)
        list(APPEND archs "${entry}")
      endif()
    endforeach()
  else()
    set(archs "baseline|UFUNC_ARCH_BASELINE|")
  endif()
  set(names "")
  foreach(entry IN LISTS archs)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 name)
    list(GET fields 1 define)
    list(LENGTH fields n)
    set(flags "")
    if(n GREATER 2)
      list(GET fields 2 flags)
      string(REPLACE "," ";" flags "${flags}")
    endif()
    # Each instruction set's loops are split into UFUNC_KERNEL_PARTS translation
    # units (loop i in part i % parts) so that a build keeps every core busy.
    math(EXPR last_part "${UFUNC_KERNEL_PARTS} - 1")
    foreach(part RANGE ${last_part})
      set(obj ${layer}_kernels_${name}_p${part})
      add_library(${obj} OBJECT ${sources})
      target_compile_definitions(${obj} PRIVATE UFUNC_ARCH_NAMESPACE=${name}_p${part} ${define}=1
                                                UFUNC_KERNEL_PART=${part})
      # No a*b+c contraction: with -mfma GCC would fuse where NumPy's loops do not, and
      # results would depend on the instruction set (complex division, logaddexp2).
      target_compile_options(${obj} PRIVATE ${flags} $<$<CXX_COMPILER_ID:GNU,Clang>:-ffp-contract=off>)
      target_include_directories(${obj} PRIVATE $<TARGET_PROPERTY:${layer},INCLUDE_DIRECTORIES>)
      target_link_libraries(${obj} PRIVATE ufunc_build_settings xsimd)
      set_target_properties(${obj} PROPERTIES POSITION_INDEPENDENT_CODE ON)
      target_sources(${library} PRIVATE $<TARGET_OBJECTS:${obj}>)
    endforeach()
    list(APPEND names ${name})
  endforeach()
  foreach(name IN LISTS names)
    target_compile_definitions(${layer} PRIVATE UFUNC_HAVE_ARCH_${name}=1)
  endforeach()
endfunction()
