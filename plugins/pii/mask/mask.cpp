// The mask PII mode. Every finding, critical or not, is replaced by a typed
// placeholder, "[{TAG}_{N}]" by default: TAG is the category in ASCII upper
// case, N numbers the category's distinct values within the request from 1.
// The same value (byte-equal; for "email" equal up to ASCII case) gets the
// same placeholder in every text of the request. Everything outside the
// findings is copied byte for byte. Every finding is recorded.
//
// Options: {"placeholder": "<format with {N} and optionally {TAG}>"}.
#include <modelgw/pii_plugin.hpp>

#include "../options_json.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mgw::pii::mask {

struct Options {
  PlaceholderFormat placeholder;
};

// Orders values byte-wise, or ignoring ASCII case (for emails). Transparent, so
// lookups take the borrowed value without copying it.
struct ValueLess {
  bool fold_case = false;
  using is_transparent = void;

  static unsigned char fold(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 'A' && u <= 'Z' ? static_cast<unsigned char>(u - 'A' + 'a') : u;
  }
  bool operator()(std::string_view a, std::string_view b) const {
    if (!fold_case) return a < b;
    const std::size_t n = a.size() < b.size() ? a.size() : b.size();
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned char x = fold(a[i]);
      const unsigned char y = fold(b[i]);
      if (x != y) return x < y;
    }
    return a.size() < b.size();
  }
};

// One request's numbering. The values it keeps live in wiped memory and go
// when the scope is destroyed.
class Scope {
 public:
  // The placeholder number of `value` in `category` (a new value takes the
  // next one), and the category's tag.
  std::pair<std::uint64_t, const std::string*> number(std::string_view category, std::string_view value) {
    Category& c = find(category);
    auto it = c.values.find(value);
    if (it == c.values.end()) {
      const std::uint64_t n = c.values.size() + 1;
      it = c.values.emplace(SecretString(value.data(), value.size()), n).first;
    }
    return {it->second, &c.tag};
  }

 private:
  using Values = std::map<SecretString, std::uint64_t, ValueLess,
                          WipingAllocator<std::pair<const SecretString, std::uint64_t>>>;
  struct Category {
    std::string name;
    std::string tag;
    Values values;
  };

  Category& find(std::string_view name) {
    for (Category& c : categories_) {
      if (c.name == name) return c;
    }
    categories_.push_back(Category{std::string(name), tag(name), Values(ValueLess{name == "email"})});
    return categories_.back();
  }

  std::vector<Category> categories_;  // few: one per category seen in the request
};

struct Mode {
  static constexpr const char* kName = "mask";
  static constexpr const char* kVersion = "1.0.0";
  using Options = mask::Options;
  using Scope = mask::Scope;

  static std::optional<Options> parse_options(std::string_view json, std::string& problem) {
    const auto j = options_object(json, problem);
    if (!j) return std::nullopt;
    Options options;
    for (const auto& [key, value] : j->items()) {
      if (key != "placeholder") {
        problem = "unknown option " + quoted_option(key) + " (the mask mode takes \"placeholder\")";
        return std::nullopt;
      }
      if (!value.is_string()) {
        problem = "option \"placeholder\" must be a string, e.g. \"[{TAG}_{N}]\"";
        return std::nullopt;
      }
      std::string why;
      std::optional<PlaceholderFormat> format =
          PlaceholderFormat::parse(value.get_ref<const std::string&>(), why);
      if (!format) {
        problem = "option \"placeholder\" " + why + ", e.g. \"[{TAG}_{N}]\"";
        return std::nullopt;
      }
      options.placeholder = std::move(*format);
    }
    return options;
  }

  static void apply(const Options& options, Scope& scope, const Text& text, Decision& out) {
    if (text.size() == 0) return;  // nothing to mask: the text goes on as it is
    const std::string_view in = text.text();
    std::string masked;
    masked.reserve(in.size() + 8 * text.size());
    std::size_t copied = 0;  // bytes of `in` dealt with so far
    for (std::size_t i = 0; i < text.size(); ++i) {
      masked.append(in.substr(copied, text.offset(i) - copied));
      const auto [n, tag] = scope.number(text.category(i), text.value(i));
      options.placeholder.append(masked, *tag, n);
      copied = text.offset(i) + text.length(i);
    }
    masked.append(in.substr(copied));
    out.replace(std::move(masked));
    out.record_all();
  }
};

}  // namespace mgw::pii::mask

MGW_PII_PLUGIN(mgw::pii::mask::Mode)
