// Distributed arrays over MPI (ufunc::dist, the library ufunc::dist): arrays split in
// blocks over the ranks of a communicator, every ufunc on them, NumPy's methods across
// ranks. docs/distributed.md is the guide.
//
//   #include <ufunc/dist/dist.hpp>
//   int main(int argc, char** argv) {
//     ufunc::dist::environment mpi(argc, argv);
//     ufunc::dist::communicator world;
//     auto x = ufunc::dist::arange<float>(world, 1000.0f);
//     auto y = ufunc::dist::multiply(x, x);
//     float s = ufunc::dist::add.reduce(y).local().item<float>();   // on every rank
//   }
#pragma once

#include <ufunc/dist/array.hpp>
#include <ufunc/dist/builtins.hpp>
#include <ufunc/dist/calls.hpp>
#include <ufunc/dist/communicator.hpp>
#include <ufunc/dist/device.hpp>
#include <ufunc/dist/distribution.hpp>
#include <ufunc/dist/environment.hpp>
#include <ufunc/dist/error.hpp>
#include <ufunc/dist/factories.hpp>
#include <ufunc/dist/function.hpp>
#include <ufunc/dist/methods.hpp>
#include <ufunc/dist/operand.hpp>
#include <ufunc/dist/transfer.hpp>
#include <ufunc/ufunc.hpp>
