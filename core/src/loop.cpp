#include <ufunc/core/loop.hpp>

#include <ufunc/core/error.hpp>

namespace ufunc {

type_signature::type_signature(std::initializer_list<dtype> inputs, std::initializer_list<dtype> outputs) {
  if (inputs.size() + outputs.size() > static_cast<std::size_t>(max_operands))
    throw value_error("a loop takes at most " + std::to_string(max_operands) + " operands");
  resize(static_cast<int>(inputs.size()), static_cast<int>(outputs.size()));
  int i = 0;
  for (auto t : inputs) types_[i++] = t;
  for (auto t : outputs) types_[i++] = t;
}

type_signature type_signature::parse(std::string_view text) {
  const auto arrow = text.find("->");
  if (arrow == std::string_view::npos || text.find("->", arrow + 2) != std::string_view::npos)
    throw value_error("signature '" + std::string(text) + "' must have the form 'ff->f'");
  type_signature sig;
  int n = 0;
  auto parse_side = [&](std::string_view side) {
    int count = 0;
    // "ff" is character codes; "float32,float32" or a single "bool" are names.
    const bool named = side.find_first_not_of("?bBhHiIlLqQeEfdFD") != std::string_view::npos;
    while (!side.empty()) {
      std::string_view item;
      if (named) {
        const auto comma = side.find(',');
        item = side.substr(0, comma);
        side = comma == std::string_view::npos ? std::string_view{} : side.substr(comma + 1);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      } else {
        item = side.substr(0, 1);
        side.remove_prefix(1);
      }
      if (n == max_operands) throw value_error("signature '" + std::string(text) + "' has too many operands");
      try {
        sig.types_[n++] = dtype::from_string(item);
      } catch (const dtype_error& e) {
        throw value_error("signature '" + std::string(text) + "': " + e.what());
      }
      ++count;
    }
    return count;
  };
  const int nin = parse_side(text.substr(0, arrow));
  if (nin == 0) throw value_error("signature '" + std::string(text) + "' has no inputs");
  const int nout = parse_side(text.substr(arrow + 2));
  sig.resize(nin, nout);
  return sig;
}

std::string type_signature::str() const {
  std::string s;
  for (int i = 0; i < nin_; ++i) s += types_[i].char_code();
  s += "->";
  for (int i = 0; i < nout_; ++i) s += types_[nin_ + i].char_code();
  return s;
}

void device_code_slots::refuse(target_id t) {
  if (t == target_id::automatic) throw value_error("device code needs the target it was compiled for");
  throw value_error("a loop carries code for at most " + std::to_string(max_device_backends) +
                    " device backends; target '" + std::string(to_string(t)) + "' is one too many");
}

}  // namespace ufunc
