#include "hostile_inputs.h"

#include <algorithm>

namespace mgw::testkit {

std::vector<HostileText> not_a_json_object() {
  return {
      {"empty", ""},
      {"blank", " \t\r\n "},
      {"truncated", R"({"api_key": "k)"},
      {"an unclosed object", "{"},
      {"null", "null"},
      {"a number", "42"},
      {"a string", R"("{}")"},
      {"an array", R"([{"model": "x"}])"},
      {"true", "true"},
      {"an object then garbage", R"({} trailing)"},
      {"two objects", R"({}{})"},
      {"YAML", "model: x\nmessages: []\n"},
      {"invalid UTF-8", "\xFF\xFE\xFD"},
      {"invalid UTF-8 inside a string", "{\"api_key\": \"\xC3\x28\xA0\xA1\", \"model\": \"\xED\xA0\x80\"}"},
      {"an overlong UTF-8 form", "{\"k\": \"\xC0\xAF\"}"},
      {"a NUL byte inside the object", std::string("{\"model\": \"a\"\0, \"x\": 1}", 23)},
      {"a lone surrogate escape", R"({"k": "\ud800"})"},
      {"1 MiB of junk", std::string(kHuge, 'x')},
      {"1 MiB of unclosed brackets", std::string(kHuge, '[')},
      {"1 MiB of unclosed objects",
       [] {
         std::string s;
         s.reserve(kHuge);
         while (s.size() + 6 < kHuge) s += R"({"a":)";
         return s;
       }()},
  };
}

std::string type_of(const Json& j) {
  switch (j.type()) {
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::array:
      return "array";
    case Json::value_t::object:
      return "object";
    case Json::value_t::null:
      return "null";
    case Json::value_t::number_float:
      return "number";
    default:
      return "integer";
  }
}

std::vector<Json> values_not_of(const std::vector<std::string>& allowed) {
  const auto allows = [&](const std::string& t) {
    if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return true;
    return t == "integer" && std::find(allowed.begin(), allowed.end(), "number") != allowed.end();
  };
  const std::vector<Json> candidates = {
      Json("a string"), Json(""),
      Json(42),         Json(-1),
      Json(1.5),        Json(1e300),
      Json(true),       Json(false),
      Json::array(),    Json::array({1, "two", nullptr}),
      Json::object(),   Json::object({{"nested", Json::object({{"x", 1}})}}),
  };
  std::vector<Json> out;
  for (const auto& v : candidates) {
    if (!allows(type_of(v))) out.push_back(v);
  }
  return out;
}

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace mgw::testkit
