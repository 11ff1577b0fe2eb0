// Everything: arrays, ufunc::function, vectorize, the built-in ufuncs.
#pragma once

#include <ufunc/core/array.hpp>
#include <ufunc/core/broadcast.hpp>
#include <ufunc/core/casting.hpp>
#include <ufunc/core/dtype.hpp>
#include <ufunc/core/error.hpp>
#include <ufunc/core/errstate.hpp>
#include <ufunc/core/function.hpp>
#include <ufunc/core/target.hpp>
#include <ufunc/core/transfer.hpp>
#include <ufunc/ufuncs/builtins.hpp>
#include <ufunc/ufuncs/gufuncs.hpp>
#include <ufunc/vectorize.hpp>
