// The table the fused kernels' probes rest on (fusion/src/nonfinite.hpp): an operand position
// listed as carrying a non-finite value must give inf or NaN whatever the other operand is,
// on every real floating dtype. Checked on the host loops, which compute what the device
// operations compute (NumPy's results); the fused kernels' flags against the unfused chain's
// are tested on the GPU (tests/cuda/test_cuda_fuse.cpp).
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <ufunc/ufunc.hpp>

#include <doctest/doctest.h>

#include "../../fusion/src/nonfinite.hpp"

namespace {

constexpr double pos_inf = std::numeric_limits<double>::infinity();
const double quiet_nan = std::numeric_limits<double>::quiet_NaN();

std::string builtin_op(const ufunc::function& f) { return "ufunc::ops::" + f.name(); }

}  // namespace

TEST_CASE("fusion: the operands listed as carrying inf and NaN give inf or NaN, whatever the other operand") {
  const std::vector<double> nonfinite{pos_inf, -pos_inf, quiet_nan};
  const std::vector<double> any{0.0, -0.0, 1.0, -1.0, 2.5, -0.75, 1e300, -1e300, 1e-300, pos_inf, -pos_inf, quiet_nan};
  const ufunc::errstate quiet({.all = ufunc::fp_policy::ignore});
  int listed = 0;
  for (const auto& handle : ufunc::builtin_ufuncs()) {
    const ufunc::function& f = handle.get();
    const unsigned carrying = ufunc::fusion::nonfinite_carrying_operands(builtin_op(f));
    if (carrying == 0) continue;
    ++listed;
    REQUIRE(f.nout() == 1);
    for (const ufunc::dtype t : {ufunc::float16, ufunc::bfloat16, ufunc::float32, ufunc::float64}) {
      for (int position = 0; position < f.nin(); ++position) {
        if ((carrying >> position & 1u) == 0) continue;
        CAPTURE(f.name());
        CAPTURE(t.name());
        CAPTURE(position);
        // Every non-finite value in `position` against every value in the other operand.
        std::vector<double> first, second;
        for (const double v : nonfinite)
          for (const double w : f.nin() == 1 ? std::vector<double>{0.0} : any) {
            first.push_back(position == 0 ? v : w);
            second.push_back(position == 0 ? w : v);
          }
        const auto a = ufunc::asarray<double>(first).astype(t), b = ufunc::asarray<double>(second).astype(t);
        const ufunc::array r = f.nin() == 1 ? f(a) : f(a, b);
        const auto finite = ufunc::isfinite(r).to_vector<bool>();
        for (std::size_t k = 0; k < finite.size(); ++k) {
          CAPTURE(first[k]);
          CAPTURE(second[k]);
          CHECK_FALSE(finite[k]);
        }
      }
    }
  }
  CHECK(listed >= 30);
  // Not listed: operations that give a finite value at an infinity or ignore a NaN.
  for (const char* name : {"exp", "expm1", "tanh", "arctan", "reciprocal", "maximum", "power", "logaddexp", "where"})
    CHECK(ufunc::fusion::nonfinite_carrying_operands(std::string("ufunc::ops::") + name) == 0);
  CHECK(ufunc::fusion::nonfinite_carrying_operands("ufunc::ops::divide") == 0b01);  // x / inf is 0
  CHECK(ufunc::fusion::nonfinite_carrying_operands("hyp_kernel") == 0);             // an elementwise_kernel's operation
}
