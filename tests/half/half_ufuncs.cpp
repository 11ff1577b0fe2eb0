// The float16 and bfloat16 loops of the built-in ufuncs and the casts to and from both types,
// for check_half_ufuncs.py, which compares them with NumPy's float16 and ml_dtypes' bfloat16.
// Writes to stdout a stream of records, each a text line and then raw little-endian data:
//
//   arch NAME\n                                    the instruction set of the built-in loops
//   input ID CODE COUNT\n<COUNT elements>          an input array (NumPy character code; 'E' is
//                                                  bfloat16)
//   ufunc NAME TARGET SIG ID,ID COUNT NOUT\n        a call of loop SIG on the first COUNT elements
//     then NOUT times: CODE COUNT\n<data>          of the inputs named, and its outputs
//   cast ID CODE\n CODE COUNT\n<data>              input ID astype CODE
//   error WHAT: MESSAGE\n                          a call or cast that threw
//   done\n
//
// The unary loops with a 16-bit input run over all 65,536 bit patterns; the binary loops over
// a fixed sample of pairs. Every ufunc runs on every host target of the build (cpu, and
// parallel where TBB is compiled in; the script splits parallel calls into small pieces
// through UFUNC_PARALLEL_GRAIN). Casts: all patterns of each 16-bit type to every dtype, and
// from every dtype its interesting values (all of them for the 8- and 16-bit integers) to
// float16 and bfloat16.
#include <algorithm>
#include <bit>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ufunc/core/transfer.hpp>
#include <ufunc/ufunc.hpp>

namespace {

constexpr std::int64_t pair_count = std::int64_t{1} << 20;

struct rng {  // splitmix64
  std::uint64_t s;
  std::uint64_t operator()() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
};

void line(const std::string& s) {
  std::fputs(s.c_str(), stdout);
  std::fputc('\n', stdout);
}

void data(const ufunc::array& a) {
  const ufunc::array c = a.copy();
  line(std::string(1, c.type().char_code()) + " " + std::to_string(c.size()));
  std::fwrite(c.data(), 1, static_cast<std::size_t>(c.nbytes()), stdout);
}

struct input_set {
  std::map<std::string, ufunc::array> arrays;

  template <class T>
  void add(const std::string& id, const std::vector<T>& values) {
    const auto n = static_cast<std::int64_t>(values.size());
    std::shared_ptr<T[]> owned(new T[values.size()]);
    std::copy(values.begin(), values.end(), owned.get());
    ufunc::array a(owned.get(), ufunc::dtype_of<T>, {n}, {}, owned);
    arrays[id] = a;
    line("input " + id + " " + std::string(1, a.type().char_code()) + " " + std::to_string(n));
    std::fwrite(a.data(), 1, static_cast<std::size_t>(a.nbytes()), stdout);
  }
  // 16-bit patterns as a float16 or bfloat16 array.
  template <class Half>
  void add_bits(const std::string& id, const std::vector<std::uint16_t>& bits) {
    std::vector<Half> v(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) v[i] = std::bit_cast<Half>(bits[i]);
    add(id, v);
  }
};

// Values near the edges of both 16-bit formats: zeros, the smallest subnormals and normals,
// the largest finite values, infinities, NaNs (quiet and signaling, both signs), ones.
std::vector<std::uint16_t> special_bits() {
  return {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7c01,
          0x7e00, 0xfe00, 0x7dff, 0x3c00, 0xbc00, 0x3bff, 0x3c01, 0x0080, 0x007f, 0x7f7f, 0xff7f,
          0x7f80, 0xff80, 0x7f81, 0x7fc0, 0xffc0, 0x3f80, 0xbf80, 0x4000, 0x4200, 0x3800};
}

// Pairs of patterns: uniform; the second near the first (same exponent range, for
// cancellation); both from the specials; the second's exponent near the first's.
void make_pairs(std::vector<std::uint16_t>& a, std::vector<std::uint16_t>& b, std::uint64_t seed) {
  rng r{seed};
  const auto specials = special_bits();
  a.resize(pair_count);
  b.resize(pair_count);
  for (std::int64_t i = 0; i < pair_count; ++i) {
    const std::uint64_t x = r();
    auto u = static_cast<std::uint16_t>(x), v = static_cast<std::uint16_t>(x >> 16);
    switch (i % 4) {
      case 0:
        break;
      case 1:
        v = static_cast<std::uint16_t>((u & 0x7f00) | (v & 0x80ff));
        break;
      case 2:
        u = specials[(x >> 32) % specials.size()];
        v = specials[(x >> 40) % specials.size()];
        break;
      default:
        v = static_cast<std::uint16_t>(u + (static_cast<int>((x >> 32) & 0x7ff) - 0x400));
        break;
    }
    a[i] = u;
    b[i] = v;
  }
}

std::vector<std::uint32_t> float_bits_samples() {
  std::vector<std::uint32_t> v;
  // Every bfloat16 pattern with the dropped 16 bits around its rounding ties.
  for (std::uint32_t i = 0; i < 65536; ++i)
    for (std::uint32_t low : {0x0u, 0x1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) v.push_back(i << 16 | low);
  // Every float16 pattern's float neighbourhood: sign, exponent and 10 fraction bits, with
  // the 13 dropped bits around the tie (float exponents 100..143 cover float16's range).
  for (std::uint32_t sign : {0u, 1u})
    for (std::uint32_t e = 100; e <= 143; ++e)
      for (std::uint32_t m = 0; m < 1024; ++m)
        for (std::uint32_t low : {0x0fffu, 0x1000u, 0x1001u}) v.push_back(sign << 31 | e << 23 | m << 13 | low);
  return v;
}

std::vector<std::uint64_t> double_bits_samples() {
  std::vector<std::uint64_t> v;
  rng r{20261128};
  for (std::uint64_t sign : {0u, 1u})
    for (std::uint64_t e = 990; e <= 1040; ++e)
      for (std::uint64_t m = 0; m < 1024; ++m)
        for (std::uint64_t low :
             {std::uint64_t{0}, (std::uint64_t{1} << 41) - 1, std::uint64_t{1} << 41, (std::uint64_t{1} << 41) + 1})
          v.push_back(sign << 63 | e << 52 | m << 42 | low);
  // Around bfloat16's ties, as doubles (ml_dtypes rounds a double through float).
  for (std::uint32_t i = 0; i < 65536; i += 3)
    for (std::uint32_t low : {0x7fffu, 0x8000u, 0x8001u}) {
      const double d = static_cast<double>(std::bit_cast<float>(i << 16 | low));
      const auto bits = std::bit_cast<std::uint64_t>(d);
      v.push_back(bits);
      v.push_back(bits ^ 1u);
      v.push_back(bits ^ (std::uint64_t{1} << 28));
    }
  for (std::uint64_t s :
       {0x0ull, 0x8000000000000000ull, 0x1ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
        0x7ff0000000000001ull, 0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff4000000000000ull,
        0x40effc0000000000ull, 0x40effe0000000000ull, 0x3e60000000000000ull, 0x3e60000000000001ull})
    v.push_back(s);
  for (int i = 0; i < (1 << 16); ++i) v.push_back(r());
  return v;
}

// Integers of every size: around each power of two the values at and near both formats'
// rounding ties, and random values of every length.
template <class T>
std::vector<T> integer_samples() {
  std::vector<T> v;
  constexpr int bits = 8 * sizeof(T);
  for (int s = 0; s < bits; ++s)
    for (std::uint64_t m = 0; m < 2048; m += (s < 12 ? 1 : 7)) {
      const std::uint64_t base = m << s;
      const std::uint64_t half = s > 0 ? std::uint64_t{1} << (s - 1) : 0;
      for (std::uint64_t x : {base, base + half - 1, base + half, base + half + 1, base - 1}) {
        v.push_back(static_cast<T>(x));
        v.push_back(static_cast<T>(~x + 1));
      }
    }
  rng r{static_cast<std::uint64_t>(bits)};
  for (int i = 0; i < 4096; ++i) v.push_back(static_cast<T>(r() >> (r() % 64)));
  return v;
}

template <class T>
std::vector<T> every() {
  std::vector<T> v;
  for (std::uint32_t i = 0; i < (std::uint32_t{1} << (8 * sizeof(T))); ++i) v.push_back(static_cast<T>(i));
  return v;
}

template <class C>
std::vector<C> complex_samples(const std::vector<typename C::value_type>& reals) {
  std::vector<C> v;
  for (std::size_t i = 0; i < reals.size(); i += 5) v.emplace_back(reals[i], i % 2 ? reals[i / 2] : 0);
  return v;
}

}  // namespace

int main() {
  ufunc::seterr({.divide = ufunc::fp_policy::ignore,
                 .over = ufunc::fp_policy::ignore,
                 .under = ufunc::fp_policy::ignore,
                 .invalid = ufunc::fp_policy::ignore});
  line(std::string("arch ") + std::string(ufunc::simd_arch()));
  input_set in;
  std::vector<std::uint16_t> all(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) all[i] = static_cast<std::uint16_t>(i);
  in.add_bits<ufunc::float16_t>("all_e", all);
  in.add_bits<ufunc::bfloat16_t>("all_E", all);
  {
    std::vector<std::uint16_t> a, b;
    make_pairs(a, b, 1);
    in.add_bits<ufunc::float16_t>("p0_e", a);
    in.add_bits<ufunc::float16_t>("p1_e", b);
    make_pairs(a, b, 2);
    in.add_bits<ufunc::bfloat16_t>("p0_E", a);
    in.add_bits<ufunc::bfloat16_t>("p1_E", b);
    // ldexp's exponents: mostly small, some far out of range.
    rng r{3};
    std::vector<std::int32_t> i32(pair_count);
    std::vector<std::int64_t> i64(pair_count);
    for (std::int64_t i = 0; i < pair_count; ++i) {
      const std::uint64_t x = r();
      i32[i] = i % 16 == 0 ? static_cast<std::int32_t>(x) : static_cast<std::int32_t>(x % 301) - 150;
      i64[i] = i % 16 == 0 ? static_cast<std::int64_t>(x) : i32[i];
    }
    in.add("p1_i", i32);
    in.add("p1_l", i64);
  }

  // cuda where the build has it and a GPU is present (host arrays in and out: the call copies).
  std::vector<ufunc::target_id> targets;
  for (ufunc::target_id t : ufunc::registered_targets())
    if (t != ufunc::target_id::cuda || ufunc::cuda_available()) targets.push_back(t);

  for (const ufunc::function& f : ufunc::builtin_ufuncs()) {
    if (f.nin() > 2) continue;
    for (const std::string& sig : f.types()) {
      const auto types = ufunc::type_signature::parse(sig);
      const char first = types.input(0).char_code();
      if (first != 'e' && first != 'E') continue;
      std::vector<std::string> ids;
      std::int64_t n = 65536;
      if (f.nin() == 1) {
        ids.push_back(std::string("all_") + first);
      } else {
        for (int k = 0; k < 2; ++k) ids.push_back("p" + std::to_string(k) + "_" + types.input(k).char_code());
        static const std::vector<std::string> full = {"add",      "subtract",  "multiply", "divide",
                                                      "copysign", "nextafter", "ldexp"};
        n = std::find(full.begin(), full.end(), f.name()) != full.end() ? pair_count : pair_count / 4;
      }
      std::vector<ufunc::operand> operands;
      for (const auto& id : ids) operands.emplace_back(in.arrays.at(id)[{ufunc::slice{0, n}}]);
      for (ufunc::target_id t : targets) {
        const std::string what = f.name() + " " + std::string(ufunc::to_string(t)) + " " + sig;
        try {
          const auto outs = f.call(operands, {.signature = sig, .target = t});
          line("ufunc " + what + " " + ids[0] + (ids.size() > 1 ? "," + ids[1] : "") + " " + std::to_string(n) + " " +
               std::to_string(outs.size()));
          for (const auto& o : outs) data(o);
        } catch (const std::exception& e) {
          line("error ufunc " + what + ": " + e.what());
        }
      }
    }
  }

  // Casts: every pattern of each 16-bit type to every dtype; every dtype's samples to both.
  {
    std::vector<float> floats;
    for (std::uint32_t b : float_bits_samples()) floats.push_back(std::bit_cast<float>(b));
    std::vector<double> doubles;
    for (std::uint64_t b : double_bits_samples()) doubles.push_back(std::bit_cast<double>(b));
    in.add("from_?", std::vector<bool>{false, true});
    in.add("from_b", every<std::int8_t>());
    in.add("from_B", every<std::uint8_t>());
    in.add("from_h", every<std::int16_t>());
    in.add("from_H", every<std::uint16_t>());
    in.add("from_i", integer_samples<std::int32_t>());
    in.add("from_I", integer_samples<std::uint32_t>());
    in.add("from_l", integer_samples<std::int64_t>());
    in.add("from_L", integer_samples<std::uint64_t>());
    in.add("from_F", complex_samples<std::complex<float>>(floats));
    in.add("from_D", complex_samples<std::complex<double>>(doubles));
    in.add("from_f", floats);
    in.add("from_d", doubles);
  }
  const bool gpu = ufunc::cuda_available();
  const auto cast = [&](const std::string& id, ufunc::dtype to) {
    const std::string what = id + " " + std::string(1, to.char_code());
    try {
      const auto r = in.arrays.at(id).astype(to);
      line("cast " + what + " host");
      data(r);
      if (gpu) {  // the device's cast kernels, same values
        const auto d = ufunc::to_device(in.arrays.at(id)).astype(to);
        line("cast " + what + " cuda");
        data(ufunc::to_host(d));
      }
    } catch (const std::exception& e) {
      line("error cast " + what + ": " + e.what());
    }
  };
  for (const char* id : {"all_e", "all_E"})
    for (int k = 0; k < ufunc::dtype::count; ++k) cast(id, ufunc::dtype::from_index(k));
  for (const char code : std::string("?bBhHiIlLfdFD"))
    for (const ufunc::dtype to : {ufunc::float16, ufunc::bfloat16}) cast(std::string("from_") + code, to);
  line("done");
  return std::fflush(stdout) == 0 ? 0 : 1;
}
