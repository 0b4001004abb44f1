#include "util/json_write.h"

#include "util/json_text.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace modelgw::util {
namespace {

template <typename Int>
void append_integer(std::string& out, Int value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  (void)ec;  // 24 bytes hold any 64-bit integer
  out.append(digits, end);
}

}  // namespace

void append_json(std::string& out, const nlohmann::json& doc, FloatForm floats) {
  using Type = nlohmann::json::value_t;
  switch (doc.type()) {
    case Type::null:
      out.append("null");
      return;
    case Type::boolean:
      out.append(doc.get<bool>() ? "true" : "false");
      return;
    case Type::number_integer:
      append_integer(out, doc.get<std::int64_t>());
      return;
    case Type::number_unsigned:
      append_integer(out, doc.get<std::uint64_t>());
      return;
    case Type::string:
      append_json_string(out, doc.get_ref<const std::string&>());
      return;
    case Type::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& element : doc) {
        if (!first) out.push_back(',');
        first = false;
        append_json(out, element, floats);
      }
      out.push_back(']');
      return;
    }
    case Type::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [name, value] : doc.items()) {
        if (!first) out.push_back(',');
        first = false;
        append_json_string(out, name);
        out.push_back(':');
        append_json(out, value, floats);
      }
      out.push_back('}');
      return;
    }
    case Type::number_float: {
      const double d = doc.get<double>();
      if (!std::isfinite(d)) {
        out.append("null");  // as dump() writes NaN and infinities
        return;
      }
      if (floats == FloatForm::integral_as_integer && d == std::trunc(d) && std::fabs(d) < 9.2e18) {
        append_integer(out, static_cast<std::int64_t>(d));
        return;
      }
      // The writer dump() itself calls (Grisu2, then "1.0" and "1e+21"
      // formatting), without the serializer dump() builds around it for
      // every value: most of a float's cost there.
      std::array<char, 64> digits;  // the size of dump()'s own buffer
      char* const end = nlohmann::detail::to_chars(digits.data(), digits.data() + digits.size(), d);
      out.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
      return;
    }
    case Type::binary:
    case Type::discarded:
      break;
  }
  out.append(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string json_text(const nlohmann::json& doc, std::size_t size_hint) {
  std::string out;
  out.reserve(size_hint);
  append_json(out, doc);
  return out;
}

}  // namespace modelgw::util
