// Prints the fused float32 Black-Scholes kernel the library generates: r and v as constants of the
// graph (`generate constants`) or as C++ scalar arguments, read once (`generate arguments`). Built
// against the library (its include folders, libufunc.a, -ldl -ltbb) at 0caee93 it gave gen_bs32.cu
// and gen_bsw32.cu, at 4f72f2a new_bsw32.cu.
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include <ufunc/fuse.hpp>
#include <ufunc/fusion/graph.hpp>
#include <ufunc/ufunc.hpp>

#include "../../../../examples/black_scholes.hpp"

int main(int argc, char** argv) {
  using namespace ufunc::fusion;
  const bool constants = argc > 1 && std::string_view(argv[1]) == "constants";
  std::vector<expr> in;
  for (int i = 0; i < 5; ++i) in.push_back(input(i));
  const auto f = ufunc::float32;
  const auto outputs = constants ? detail::outputs_of(black_scholes(in[0], in[1], in[2], 0.02, 0.30))
                                 : detail::outputs_of(black_scholes(in[0], in[1], in[2], in[3], in[4]));
  const std::vector<ufunc::dtype> types = constants
                                              ? std::vector<ufunc::dtype>{f, f, f}
                                              : std::vector<ufunc::dtype>{f, f, f, ufunc::float64, ufunc::float64};
  std::vector<std::optional<ufunc::weak_scalar>> weak;
  if (!constants) weak = {std::nullopt, std::nullopt, std::nullopt, ufunc::weak_scalar(0.02), ufunc::weak_scalar(0.30)};
  std::fputs(compile_graph(outputs, types, weak, "black_scholes")->device_source().c_str(), stdout);
}
