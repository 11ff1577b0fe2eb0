// The shared cases that need the functor compiled for the device (tests/targets/), built by
// nvcc for target::cuda. The built-in calls' shared cases (targets/test_calls.cpp) join this
// executable as they are: the host compiler builds them, the library runs them on the GPU.
#include "../targets/test_vectorize.cpp"
