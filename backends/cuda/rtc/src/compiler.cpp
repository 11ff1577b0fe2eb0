#include <ufunc/backends/cuda/rtc/compiler.hpp>

#include <sys/stat.h>

#include <algorithm>

#include <ufunc/core/error.hpp>

#include "toolkit.hpp"

namespace ufunc::cuda::rtc {

namespace {

// NVRTC's C interface, declared here from its documentation so that the library builds
// without the toolkit's headers (it is loaded with dlopen).
using nvrtc_result = int;  // nvrtcResult; 0 is NVRTC_SUCCESS
using nvrtc_program = struct nvrtc_program_opaque*;

const std::vector<std::string>& nvrtc_names() {
  static const std::vector<std::string> names{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  return names;
}

struct nvrtc_api {
  detail::shared_library library{nvrtc_names(), "NVRTC (libnvrtc)"};
  const char* (*get_error_string)(nvrtc_result);
  nvrtc_result (*version)(int*, int*);
  nvrtc_result (*get_supported_archs)(int*);
  nvrtc_result (*get_num_supported_archs)(int*);
  nvrtc_result (*create_program)(nvrtc_program*, const char*, const char*, int, const char* const*, const char* const*);
  nvrtc_result (*destroy_program)(nvrtc_program*);
  nvrtc_result (*compile_program)(nvrtc_program, int, const char* const*);
  nvrtc_result (*get_cubin_size)(nvrtc_program, std::size_t*);
  nvrtc_result (*get_cubin)(nvrtc_program, char*);
  nvrtc_result (*get_log_size)(nvrtc_program, std::size_t*);
  nvrtc_result (*get_log)(nvrtc_program, char*);
  nvrtc_result (*add_name_expression)(nvrtc_program, const char*);
  nvrtc_result (*get_lowered_name)(nvrtc_program, const char*, const char**);

  template <class F>
  void bind(F& f, const char* name) {
    f = reinterpret_cast<F>(library.symbol(name));
  }
  nvrtc_api() {
    bind(get_error_string, "nvrtcGetErrorString");
    bind(version, "nvrtcVersion");
    bind(get_supported_archs, "nvrtcGetSupportedArchs");
    bind(get_num_supported_archs, "nvrtcGetNumSupportedArchs");
    bind(create_program, "nvrtcCreateProgram");
    bind(destroy_program, "nvrtcDestroyProgram");
    bind(compile_program, "nvrtcCompileProgram");
    bind(get_cubin_size, "nvrtcGetCUBINSize");
    bind(get_cubin, "nvrtcGetCUBIN");
    bind(get_log_size, "nvrtcGetProgramLogSize");
    bind(get_log, "nvrtcGetProgramLog");
    bind(add_name_expression, "nvrtcAddNameExpression");
    bind(get_lowered_name, "nvrtcGetLoweredName");
  }
};

const nvrtc_api& api() { return detail::load_once<nvrtc_api>(); }

void check(const nvrtc_api& a, nvrtc_result r, const char* what) {
  if (r != 0) throw target_error(std::string("NVRTC ") + what + " failed: " + a.get_error_string(r));
}

struct program_guard {
  const nvrtc_api& a;
  nvrtc_program p = nullptr;
  ~program_guard() {
    if (p != nullptr) (void)a.destroy_program(&p);
  }
};

std::string program_log(const nvrtc_api& a, nvrtc_program p) {
  std::size_t size = 0;
  if (a.get_log_size(p, &size) != 0 || size <= 1) return {};
  std::string log(size, '\0');
  if (a.get_log(p, log.data()) != 0) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::string numbered_source(const std::string& source) {
  // Without streams (source_text.hpp says why).
  std::string out;
  int line = 0;
  for (std::size_t start = 0; start < source.size();) {
    const std::size_t end = std::min(source.find('\n', start), source.size());
    const std::string number = std::to_string(++line);
    out.append(number.size() < 4 ? 4 - number.size() : 0, ' ');
    out.append(number).append(" | ").append(source, start, end - start).append("\n");
    start = end + 1;
  }
  return out;
}

std::vector<std::string> default_options() {
  std::vector<std::string> options{"--std=c++17",     "--fmad=true",      "--ftz=false",
                                   "--prec-div=true", "--prec-sqrt=true", "--device-as-default-execution-space"};
  for (auto& include : detail::toolkit_include_options()) options.push_back(std::move(include));
  return options;
}

int nvrtc_version() {
  const auto& a = api();
  int major = 0, minor = 0;
  check(a, a.version(&major, &minor), "nvrtcVersion");
  return major * 1000 + minor * 10;
}

std::string compiler_identity() {
  // The file that loading NVRTC opens first, by its size and modification time: a kernel
  // found in the disk cache then costs no load of NVRTC (about 6 ms for its 100 MB).
  if (const auto file = detail::toolkit_library_file(nvrtc_names())) {
    struct stat st {};
    if (::stat(file->c_str(), &st) == 0)
      return "nvrtc file " + *file + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
             std::to_string(st.st_mtim.tv_nsec);
  }
  return "nvrtc " + std::to_string(nvrtc_version());
}

bool nvrtc_available() noexcept {
  try {
    (void)api();
    return true;
  } catch (...) {
    return false;
  }
}

compile_result compile(const compile_request& r) {
  const auto& a = api();
  {
    int count = 0;
    check(a, a.get_num_supported_archs(&count), "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(static_cast<std::size_t>(count));
    check(a, a.get_supported_archs(archs.data()), "nvrtcGetSupportedArchs");
    bool supported = false;
    std::string list;
    for (int arch : archs) {
      supported |= arch == r.architecture;
      list += (list.empty() ? "" : ", ") + std::to_string(arch);
    }
    if (!supported)
      throw value_error("NVRTC " + std::to_string(nvrtc_version() / 1000) + " cannot compile for sm_" +
                        std::to_string(r.architecture) + " (it supports " + list + ")");
  }
  program_guard program{a};
  // NVRTC takes NUL-terminated strings; the headers are views.
  std::vector<std::string> header_texts, header_names;
  std::vector<const char*> texts, names;
  for (const auto& h : r.headers) {
    header_names.emplace_back(h.name);
    header_texts.emplace_back(h.text);
  }
  for (std::size_t k = 0; k < r.headers.size(); ++k) {
    names.push_back(header_names[k].c_str());
    texts.push_back(header_texts[k].c_str());
  }
  check(a,
        a.create_program(&program.p, r.source.c_str(), r.name.c_str(), static_cast<int>(r.headers.size()), texts.data(),
                         names.data()),
        "nvrtcCreateProgram");
  for (const auto& expression : r.name_expressions)
    check(a, a.add_name_expression(program.p, expression.c_str()), "nvrtcAddNameExpression");

  // A request's option that sets what a default sets (--std=, --fmad=, ...) replaces it.
  const auto setting = [](const std::string& o) { return o.substr(0, o.find('=')); };
  std::vector<std::string> options = default_options();
  options.erase(std::remove_if(options.begin(), options.end(),
                               [&](const std::string& d) {
                                 return d.find('=') != std::string::npos &&
                                        std::any_of(r.options.begin(), r.options.end(),
                                                    [&](const std::string& o) { return setting(o) == setting(d); });
                               }),
                options.end());
  options.push_back("--gpu-architecture=sm_" + std::to_string(r.architecture));
  options.insert(options.end(), r.options.begin(), r.options.end());
  std::vector<const char*> pointers;
  for (const auto& o : options) pointers.push_back(o.c_str());
  const nvrtc_result status = a.compile_program(program.p, static_cast<int>(pointers.size()), pointers.data());
  compile_result out;
  out.log = program_log(a, program.p);
  if (status != 0) {
    std::string options_text;
    for (const auto& o : r.options) options_text += " " + o;
    throw compile_error(r.name + " did not compile (" + a.get_error_string(status) + "):\n" + out.log +
                        "\n\noptions:" + (options_text.empty() ? " (defaults)" : options_text) + "\nsource:\n" +
                        numbered_source(r.source));
  }
  std::size_t size = 0;
  check(a, a.get_cubin_size(program.p, &size), "nvrtcGetCUBINSize");
  out.cubin.resize(size);
  check(a, a.get_cubin(program.p, out.cubin.data()), "nvrtcGetCUBIN");
  for (const auto& expression : r.name_expressions) {
    const char* lowered = nullptr;
    check(a, a.get_lowered_name(program.p, expression.c_str(), &lowered), "nvrtcGetLoweredName");
    out.lowered_names.emplace_back(lowered);
  }
  return out;
}

}  // namespace ufunc::cuda::rtc
