# The library's layers: core, the backends, the built-in ufuncs and the front end. Each
# is an object library compiled with the include directories of itself and of the
# layers it builds on only, so that a core file that includes a backend header, or a
# backend that includes another one it does not name, fails to build. Their objects
# make the one installed library, ufunc (ufunc::ufunc), which carries the public
# include directories and definitions of all of them.
include_guard(GLOBAL)

# What every layer and kernel copy is compiled with: the public definitions and options
# (also on ufunc, for its users).
add_library(ufunc_build_settings INTERFACE)
target_compile_features(ufunc_build_settings INTERFACE cxx_std_20)
target_compile_definitions(ufunc_build_settings INTERFACE ${UFUNC_PUBLIC_DEFINITIONS})
target_compile_options(ufunc_build_settings INTERFACE ${UFUNC_CUDA_OPTIONS})
# The floating-point flags are results here (errstate). Clang assumes by default that no code
# reads them and may drop or move the operations that raise them (a float-to-int cast's
# invalid, a NaN compared); GCC keeps them by default (-ftrapping-math).
target_compile_options(ufunc_build_settings
                       INTERFACE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:Clang>>:-ffp-exception-behavior=maytrap>)
# The project's warnings, on the layers' own sources (not on the kernel copies, whose
# code is xsimd's templates mostly, and not on ufunc's users).
set(UFUNC_WARNINGS "")
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # -Wno-restrict: GCC 12 misreports std::string concatenation (GCC bug 105329).
  set(UFUNC_WARNINGS $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-psabi -Wno-restrict>)
endif()

# ufunc_add_layer(<target> INCLUDES <dir>... SOURCES <file>... [LINK <target>...])
# An object library of the sources, seeing only the INCLUDES directories (and the
# include directories of the LINK targets, which ufunc links privately too).
function(ufunc_add_layer layer)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "INCLUDES;SOURCES;LINK")
  add_library(${layer} OBJECT ${arg_SOURCES})
  target_include_directories(${layer} PRIVATE ${arg_INCLUDES})
  target_link_libraries(${layer} PRIVATE ufunc_build_settings ${arg_LINK})
  target_compile_options(${layer} PRIVATE ${UFUNC_WARNINGS})
  set_target_properties(${layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_sources(ufunc PRIVATE $<TARGET_OBJECTS:${layer}>)
  if(arg_LINK)
    target_link_libraries(ufunc PRIVATE ${arg_LINK})
  endif()
endfunction()

# ufunc_add_backend(<name> SOURCES <file>... [USES <backend>...] [LINK <target>...]
#                   [LINK_PUBLIC <target>...])
# Called from backends/<name>/CMakeLists.txt: the layer ufunc_backend_<name> over core
# and the backends it USES (parallel and cuda use cpu's loops), its include directory
# on ufunc, and its name in the list of backends whose register_backend() the library
# calls (cmake/ufunc_backends.cmake). LINK_PUBLIC targets are linked publicly by ufunc
# (their headers are in the backend's public headers).
function(ufunc_add_backend name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;USES;LINK;LINK_PUBLIC")
  set(includes ${PROJECT_SOURCE_DIR}/core/include ${CMAKE_CURRENT_SOURCE_DIR}/include)
  foreach(lower IN LISTS arg_USES)
    list(APPEND includes ${PROJECT_SOURCE_DIR}/backends/${lower}/include)
  endforeach()
  ufunc_add_layer(ufunc_backend_${name} INCLUDES ${includes} SOURCES ${arg_SOURCES} LINK ${arg_LINK}
                  ${arg_LINK_PUBLIC})
  target_include_directories(ufunc PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>)
  if(arg_LINK_PUBLIC)
    target_link_libraries(ufunc PUBLIC ${arg_LINK_PUBLIC})
  endif()
  set_property(GLOBAL APPEND PROPERTY UFUNC_BACKENDS ${name})
endfunction()
