// NumPy's C API for the module's files: arrays are read and made through it (no Python-level
// calls on the hot path). module.cpp fills the API table; the other files only use it.
#pragma once

#include <Python.h>

#ifndef UFUNC_PYTHON_IMPORTS_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>
