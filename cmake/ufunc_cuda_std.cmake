# CMake 3.25 (Debian 12) does not know nvcc's C++20 flag; nvcc has accepted
# -std=c++20 since CUDA 12. Teach CMake so that cxx_std_20 targets with .cu files
# configure. Newer CMake versions know the flag and skip this.
include_guard(GLOBAL)
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION
   AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
