// Strings parsed at run time and the loop tables they select: type signatures
// ("ff->f", "float32,float32->float32") as signature= and as the signatures of
// user-registered loops, dtype names and character codes, casting and target
// names, dtype= and casting= on calls of built-in, vectorized and user-made ufuncs,
// and the methods' loop resolution on user-made loop tables.
//
// Oracles: what parses prints back to the same value; a call that succeeds returns
// the dtypes that resolve() names for the same inputs and options; a user ufunc's
// loop is run only with operands of its own signature (its code reads and writes
// them by the signature's item sizes, so ASan sees any mismatch).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_common.hpp"

namespace {

std::string fuzz_string(FuzzedDataProvider& in) {
  // Short strings: the parsers' structure is in a few characters; the dictionary
  // (signature.dict) supplies the tokens.
  return in.ConsumeRandomLengthString(40);
}

void check_parsers(const std::string& s) {
  fuzz::accepted([&] {
    const auto sig = ufunc::type_signature::parse(s);
    // No outputs is a signature (NumPy's frompyfunc(f, 1, 0)); no inputs is not.
    fuzz::require(sig.nin() >= 1 && sig.nargs() <= ufunc::max_operands, "parse: bad operand counts for '" + s + "'");
    const auto again = ufunc::type_signature::parse(sig.str());
    fuzz::require(again == sig, "parse: '" + s + "' prints as '" + sig.str() + "', which parses differently");
  });
  fuzz::accepted([&] {
    const auto t = ufunc::dtype::from_string(s);
    fuzz::require(ufunc::dtype::from_string(t.name()) == t && ufunc::dtype::from_char(t.char_code()) == t,
                  "dtype::from_string: '" + s + "' does not round-trip");
  });
  fuzz::accepted([&] {
    const auto c = ufunc::casting_from_string(s);
    fuzz::require(ufunc::casting_from_string(ufunc::to_string(c)) == c, "casting_from_string: no round trip");
  });
  fuzz::accepted([&] {
    const auto t = ufunc::target_from_string(s);
    fuzz::require(ufunc::target_from_string(ufunc::to_string(t)) == t, "target_from_string: no round trip");
  });
}

// A user loop for any signature: reads every input element and writes zeros (a valid
// value of every dtype) to every output element, by the signature's item sizes.
struct generic_loop_data {
  int nin = 0, nout = 0;
  std::size_t itemsize[ufunc::max_operands] = {};
};

void generic_loop(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data) {
  const auto& d = *static_cast<const generic_loop_data*>(data);
  unsigned char sink[16];
  for (std::int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < d.nin; ++k) std::memcpy(sink, args[k] + i * steps[k], d.itemsize[k]);
    for (int k = d.nin; k < d.nin + d.nout; ++k) std::memset(args[k] + i * steps[k], 0, d.itemsize[k]);
  }
}

ufunc::loop_entry make_generic_loop(const ufunc::type_signature& sig) {
  auto data = std::make_shared<generic_loop_data>();
  data->nin = sig.nin();
  data->nout = sig.nout();
  for (int k = 0; k < sig.nargs(); ++k) data->itemsize[k] = sig[k].itemsize();
  ufunc::loop_entry e;
  e.types = sig;
  e.host = generic_loop;
  e.host_data = data.get();
  e.keepalive = data;
  return e;
}

ufunc::casting pick_casting(FuzzedDataProvider& in) {
  static constexpr ufunc::casting all[] = {ufunc::casting::no, ufunc::casting::equiv, ufunc::casting::safe,
                                           ufunc::casting::same_kind, ufunc::casting::unsafe};
  return all[in.ConsumeIntegralInRange<std::size_t>(0, std::size(all) - 1)];
}

// Inputs for a call: small arrays of any dtype (one shape, or broadcasting against
// a 1-element one) or weak scalars.
std::vector<ufunc::operand> pick_inputs(FuzzedDataProvider& in, int n, std::vector<ufunc::array>& keep) {
  std::vector<ufunc::operand> ops;
  for (int k = 0; k < n; ++k) {
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      ops.push_back(fuzz::pick_scalar(in));
    } else {
      const ufunc::dim_vector shape = in.ConsumeBool() ? ufunc::dim_vector{3} : ufunc::dim_vector{};
      keep.push_back(fuzz::filled_array(in, fuzz::pick_dtype(in), shape));
      ops.emplace_back(keep.back());
    }
  }
  return ops;
}

// Calls f and checks the result against resolve() when every input is an array.
void call_and_check(const ufunc::function& f, std::span<const ufunc::operand> ops, const ufunc::call_options& o) {
  std::vector<ufunc::array> results;
  if (!fuzz::accepted([&] { results = f.call(ops, o); })) return;
  fuzz::require(static_cast<int>(results.size()) == f.nout(), "call: wrong number of results");
  std::vector<ufunc::dtype> types;
  for (const auto& op : ops) {
    if (op.is_scalar()) return;  // weak scalars resolve through NEP 50, not resolve()
    types.push_back(op.as_array().type());
  }
  ufunc::type_signature sig;
  fuzz::require(fuzz::accepted([&] { sig = f.resolve(types, o); }),
                "ufunc '" + f.name() + "': a call succeeded but resolve() refused the same dtypes");
  if (o.out.empty())
    for (int k = 0; k < f.nout(); ++k)
      fuzz::require(results[static_cast<std::size_t>(k)].type() == sig.output(k),
                    "ufunc '" + f.name() + "': result dtype differs from resolve()'s " + sig.str());
}

void fuzz_builtin(FuzzedDataProvider& in, const std::string& signature) {
  const ufunc::function& f = fuzz::pick_builtin(in);
  std::vector<ufunc::array> keep;
  const auto ops = pick_inputs(in, f.nin(), keep);
  ufunc::call_options o;
  o.signature = signature;
  if (in.ConsumeBool()) o.dtype = fuzz::pick_dtype(in);
  o.casting = pick_casting(in);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    const auto shape = in.ConsumeBool() ? ufunc::dim_vector{3} : ufunc::dim_vector{};
    for (int k = 0; k < f.nout(); ++k) o.out.push_back(ufunc::array::zeros(shape, fuzz::pick_dtype(in)));
  }
  call_and_check(f, ops, o);
}

// vectorize's run-time path with a few typed loops.
struct plus {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
    else
      return a + b;
  }
};

void fuzz_vectorized(FuzzedDataProvider& in, const std::string& signature) {
  static const auto vadd =
      ufunc::vectorize<ufunc::signatures<std::int32_t(std::int32_t, std::int32_t), float(float, float),
                                         double(double, double), std::uint8_t(std::uint8_t, std::uint8_t)>>(plus{},
                                                                                                            "vadd");
  std::vector<ufunc::array> keep;
  const auto ops = pick_inputs(in, 2, keep);
  ufunc::call_options o;
  o.signature = signature;
  if (in.ConsumeBool()) o.dtype = fuzz::pick_dtype(in);
  o.casting = pick_casting(in);
  call_and_check(vadd.ufunc(), ops, o);
  if (!keep.empty())
    fuzz::accepted([&] { (void)vadd.ufunc().reduce(keep[0], {.axis = ufunc::all_axes, .dtype = o.dtype}); });
}

// A user ufunc whose loop table comes from the input: signatures parsed from strings,
// names that the methods treat specially (add and multiply upcast narrow integers,
// the logical ufuncs reduce in bool).
void fuzz_user_function(FuzzedDataProvider& in, const std::string& signature) {
  static const char* const names[] = {"user", "add", "multiply", "logical_and", "logical_or"};
  const char* name = names[in.ConsumeIntegralInRange<std::size_t>(0, std::size(names) - 1)];
  const int nin = in.ConsumeIntegralInRange<int>(0, 3);
  const int nout = in.ConsumeIntegralInRange<int>(0, 2);
  std::optional<ufunc::weak_scalar> identity;
  if (in.ConsumeBool()) identity = fuzz::pick_weak(in);
  std::optional<ufunc::function> f;
  if (!fuzz::accepted([&] { f.emplace(name, nin, nout, identity); })) {
    fuzz::require(nin < 1 || nout < 0, "function: valid arity refused");
    return;
  }
  fuzz::require(nin >= 1 && nout >= 0, "function: invalid arity accepted");
  const int nloops = in.ConsumeIntegralInRange<int>(0, 4);
  for (int k = 0; k < nloops; ++k) {
    const std::string text = fuzz_string(in);
    fuzz::accepted([&] {
      const auto sig = ufunc::type_signature::parse(text);
      f->add_loop(make_generic_loop(sig));
      fuzz::require(sig.nin() == nin && sig.nout() == nout, "add_loop: a loop of the wrong arity was accepted");
    });
  }
  std::vector<ufunc::array> keep;
  const auto ops = pick_inputs(in, nin, keep);
  ufunc::call_options o;
  o.signature = signature;
  if (in.ConsumeBool()) o.dtype = fuzz::pick_dtype(in);
  o.casting = pick_casting(in);
  call_and_check(*f, ops, o);
  if (keep.empty()) return;
  const ufunc::array& a = keep[0];
  std::optional<ufunc::dtype> dt;
  if (in.ConsumeBool()) dt = fuzz::pick_dtype(in);
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      fuzz::accepted([&] { (void)f->reduce(a, {.axis = ufunc::all_axes, .dtype = dt}); });
      break;
    case 1:
      fuzz::accepted([&] { (void)f->accumulate(a, {.dtype = dt}); });
      break;
    case 2:
      fuzz::accepted([&] { (void)f->outer(a, a); });
      break;
    default:
      fuzz::accepted([&] {
        f->at(a.ndim() ? a : a.reshape({1}), ufunc::asarray<std::int64_t>({0, -1, 0}), ops.size() > 1 ? ops[1] : ops[0],
              {.signature = o.signature});
      });
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string signature = fuzz_string(in);
  check_parsers(signature);
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      fuzz_builtin(in, signature);
      break;
    case 1:
      fuzz_vectorized(in, signature);
      break;
    default:
      fuzz_user_function(in, signature);
      break;
  }
  return 0;
}
