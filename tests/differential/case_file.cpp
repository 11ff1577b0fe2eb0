// Reading the case files of generate_cases.py (format UFDIFF02): the byte layout of each
// tag's payload mirrors the generator's writer.
#include "case_file.hpp"

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace differential {
namespace {

// The dtypes by their index in the file; index by_name is followed by the dtype's name (a
// length byte, then the name: float16, bfloat16), which dtype::from_string parses.
constexpr char codes[] = "?bBhHiIlLfdFD";
constexpr std::uint8_t by_name = 255;

class reader {
 public:
  reader(const std::byte* p, std::size_t n) : p_(p), end_(p + n) {}
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  std::string str(std::size_t n) {
    need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  std::vector<std::byte> bytes(std::size_t n) {
    need(n);
    std::vector<std::byte> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  [[nodiscard]] bool done() const { return p_ == end_; }
  [[nodiscard]] std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }

 private:
  void need(std::size_t n) const {
    if (static_cast<std::size_t>(end_ - p_) < n) throw std::runtime_error("truncated case file");
  }
  const std::byte* p_;
  const std::byte* end_;
};

dtype read_dtype(reader& r) {
  const auto i = r.get<std::uint8_t>();
  if (i == by_name) {
    const std::string name = r.str(r.get<std::uint8_t>());
    try {
      return dtype::from_string(name);
    } catch (const std::exception&) {
      throw std::runtime_error("unknown dtype '" + name + "' in case file");
    }
  }
  if (i >= sizeof(codes) - 1) throw std::runtime_error("bad dtype index in case file");
  return dtype::from_char(codes[i]);
}

array_spec read_array(reader& r) {
  array_spec a;
  a.type = read_dtype(r);
  const int ndim = r.get<std::uint8_t>();
  for (int i = 0; i < ndim; ++i) a.shape.push_back(r.get<std::int64_t>());
  const int nt = r.get<std::uint8_t>();
  for (int t = 0; t < nt; ++t) {
    transform tr;
    tr.kind = r.get<std::uint8_t>();
    const int n = r.get<std::uint8_t>();
    for (int i = 0; i < n; ++i) {
      if (tr.kind == 1) {
        const auto flags = r.get<std::uint8_t>();
        const auto start = r.get<std::int64_t>(), stop = r.get<std::int64_t>(), step = r.get<std::int64_t>();
        ufunc::slice s;
        if (flags & 1) s.start = start;
        if (flags & 2) s.stop = stop;
        s.step = step;
        tr.slices.push_back(s);
      } else {
        tr.values.push_back(r.get<std::int64_t>());
      }
    }
    a.transforms.push_back(std::move(tr));
  }
  a.data = r.bytes(r.get<std::uint64_t>());
  return a;
}

scalar_spec read_scalar(reader& r) {
  scalar_spec s;
  s.kind = r.get<char>();
  switch (s.kind) {
    case 'b':
      s.i = r.get<std::uint8_t>();
      break;
    case 'i':
      s.i = r.get<std::int64_t>();
      break;
    case 'u':
      s.u = r.get<std::uint64_t>();
      break;
    case 'f':
      s.re = r.get<double>();
      break;
    case 'c':
      s.re = r.get<double>();
      s.im = r.get<double>();
      break;
    default:
      throw std::runtime_error("bad scalar kind in case file");
  }
  return s;
}

test_case read_case(reader& r) {
  test_case c;
  while (!r.done()) {
    const int tag = r.get<std::uint8_t>();
    const auto len = r.get<std::uint32_t>();
    const auto payload = r.bytes(len);
    reader f(payload.data(), payload.size());
    switch (tag) {
      case 1:
        c.mode = f.get<char>();
        c.index = f.get<std::uint64_t>();
        break;
      case 2:
        c.ufunc_name = f.str(len);
        break;
      case 3:
        c.method = f.str(len);
        break;
      case 4:
        c.inputs.push_back({false, read_array(f), {}});
        break;
      case 5:
        c.inputs.push_back({true, {}, read_scalar(f)});
        break;
      case 6:
        c.outs.push_back({-1, read_array(f)});
        break;
      case 7:
        c.outs.push_back({f.get<std::uint8_t>(), {}});
        break;
      case 8:
        c.where = read_array(f);
        break;
      case 9:
        c.out_dtype = read_dtype(f);
        break;
      case 10:
        c.signature = f.str(len);
        break;
      case 11:
        c.casting = ufunc::casting_from_string(f.str(len));
        break;
      case 12: {
        c.has_axis = true;
        const int n = f.get<std::uint8_t>();
        if (n == 255) {
          c.axis_none = true;
        } else {
          c.axis_scalar = f.get<std::uint8_t>() != 0;
          for (int i = 0; i < n; ++i) c.axis.push_back(f.get<std::int64_t>());
        }
        break;
      }
      case 13:
        c.keepdims = f.get<std::uint8_t>() != 0;
        break;
      case 14:
        c.initial = read_scalar(f);
        break;
      case 15:
        c.indices = read_array(f);
        break;
      case 16: {
        expected_result e;
        e.type = read_dtype(f);
        const int ndim = f.get<std::uint8_t>();
        for (int i = 0; i < ndim; ++i) e.shape.push_back(f.get<std::int64_t>());
        e.data = f.bytes(f.get<std::uint64_t>());
        if (f.get<std::uint8_t>()) {
          const auto m = f.bytes(e.data.size() / e.type.itemsize());
          e.mask.assign(reinterpret_cast<const std::uint8_t*>(m.data()),
                        reinterpret_cast<const std::uint8_t*>(m.data()) + m.size());
        }
        c.expected.push_back(std::move(e));
        break;
      }
      case 17: {
        c.expect_error = true;
        const std::string all = f.str(len);
        const auto a = all.find('\0'), b = all.find('\0', a + 1);
        c.np_error = all.substr(0, a);
        c.our_error = all.substr(a + 1, b - a - 1);
        c.np_message = all.substr(b + 1);
        break;
      }
      case 18:
        c.desc = f.str(len);
        break;
      case 19:
        c.canonical = f.str(len);
        break;
      case 20: {
        c.ulps_override = f.get<std::int32_t>();
        const auto n = f.get<std::uint64_t>();
        for (std::uint64_t i = 0; i < n; ++i) c.abs_tol.push_back(f.get<double>());
        break;
      }
      case 21:
        c.loop = f.str(len);
        break;
      case 22:
        c.has_flags = true;
        c.np_flags = f.get<std::uint8_t>();
        c.flags_free = f.get<std::uint8_t>();
        break;
      default:
        c.unknown_tags.push_back(tag);
        break;  // a newer generator: the case is skipped
    }
  }
  return c;
}

// Whether NumPy `version` ("2.4.6") is older than major.minor.
bool numpy_older_than(const std::string& version, int major, int minor) {
  int v_major = 0, v_minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &v_major, &v_minor) != 2) return false;
  return v_major < major || (v_major == major && v_minor < minor);
}

}  // namespace

case_file read_case_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  reader r(reinterpret_cast<const std::byte*>(buf.data()), buf.size());
  if (r.str(8) != "UFDIFF02") throw std::runtime_error(path + " is not a case file of this version (UFDIFF02)");
  case_file cf;
  cf.path = path;
  std::istringstream header(r.str(r.get<std::uint32_t>()));
  for (std::string line; std::getline(header, line);) {
    const auto eq = line.find('=');
    const auto key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "numpy") cf.numpy_version = value;
    if (key == "seed") cf.seed = value;
    if (key == "repro") {
      std::string item;
      for (char ch : value) {
        if (ch == '\x1f') {
          cf.repro.push_back(item);
          item.clear();
        } else {
          item += ch;
        }
      }
      cf.repro.push_back(item);
    }
  }
  const auto n = r.get<std::uint32_t>();
  cf.cases.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const auto len = r.get<std::uint32_t>();
    const auto body = r.bytes(len);
    reader cr(body.data(), body.size());
    cf.cases.push_back(read_case(cr));
    auto& c = cf.cases.back();
    if ((c.canonical.empty() ? c.ufunc_name : c.canonical) == "nextafter" && numpy_older_than(cf.numpy_version, 2, 5))
      c.half_zero_sign_free = true;
  }
  return cf;
}

}  // namespace differential
