# ufunc_python_oracle(<result variable> <python modules>...): the reason the tests' Python
# oracle cannot run (empty when it can): python3 found at configure time (Python3_EXECUTABLE,
# which tests/run.sh passes), NumPy >= 2, and every module named. Checked at configure time so
# that a test without its oracle reports why, instead of failing for an unknown cause.
function(ufunc_python_oracle result)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(NOT Python3_Interpreter_FOUND)
    set(${result} "python3 was not found at configure time" PARENT_SCOPE)
    return()
  endif()
  set(imports "numpy")
  set(described "NumPy >= 2")
  foreach(module IN LISTS ARGN)
    string(APPEND imports ", ${module}")
    string(APPEND described " with ${module}")
  endforeach()
  execute_process(COMMAND ${Python3_EXECUTABLE} -c
                          "import sys, ${imports}; sys.exit(int(numpy.__version__.split('.')[0]) < 2)"
                  RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
  if(status EQUAL 0)
    set(${result} "" PARENT_SCOPE)
  else()
    set(${result} "${Python3_EXECUTABLE} has no ${described}" PARENT_SCOPE)
  endif()
endfunction()
