# Per-instruction-set kernels: one source compiled once per x86 instruction set,
# each copy in its own namespace (UFUNC_ARCH_NAMESPACE), so the library carries
# SSE4.2, AVX2 and AVX-512 code and picks at run time, without -march=native.
include_guard(GLOBAL)

set(UFUNC_X86_ARCHS
  "baseline|UFUNC_ARCH_BASELINE|"
  "sse4_2|UFUNC_ARCH_SSE4_2|-msse4.2"
  "avx2|UFUNC_ARCH_AVX2|-mavx2,-mfma"
  "avx512bw|UFUNC_ARCH_AVX512BW|-mavx512f,-mavx512cd,-mavx512dq,-mavx512bw,-mavx512vl,-mfma")

function(ufunc_add_arch_kernels target source)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64|amd64")
    set(archs ${UFUNC_X86_ARCHS})
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
    set(obj ${target}_kernels_${name})
    add_library(${obj} OBJECT ${source})
    target_compile_definitions(${obj} PRIVATE UFUNC_ARCH_NAMESPACE=${name} ${define}=1)
    target_compile_options(${obj} PRIVATE ${flags})
    target_include_directories(${obj} PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
    target_link_libraries(${obj} PRIVATE xsimd)
    set_target_properties(${obj} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${obj}>)
    list(APPEND names ${name})
  endforeach()
  foreach(name IN LISTS names)
    target_compile_definitions(${target} PRIVATE UFUNC_HAVE_ARCH_${name}=1)
  endforeach()
endfunction()
