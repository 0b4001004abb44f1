#include "util/json_dom.h"

#include <simdjson.h>

#include <memory>
#include <string>

namespace modelgw::util {
namespace {

namespace dom = simdjson::dom;
using json = nlohmann::json;

// `repeated`: set when an object of the text gives a name twice.
json to_json(dom::element e, bool& repeated) {
  switch (e.type()) {
    case dom::element_type::OBJECT: {
      json out(json::value_t::object);
      auto& members = out.get_ref<json::object_t&>();
      // insert_or_assign: a repeated key keeps its last value, as nlohmann's parser does.
      for (dom::key_value_pair member : dom::object(e)) {
        const bool added =
            members.insert_or_assign(std::string(member.key), to_json(member.value, repeated)).second;
        repeated = repeated || !added;
      }
      return out;
    }
    case dom::element_type::ARRAY: {
      json out(json::value_t::array);
      auto& items = out.get_ref<json::array_t&>();
      const dom::array array(e);
      items.reserve(array.size());
      for (dom::element item : array) items.push_back(to_json(item, repeated));
      return out;
    }
    case dom::element_type::STRING:
      return json(std::string(std::string_view(e)));
    case dom::element_type::INT64: {
      // nlohmann reads an integer without a minus sign as unsigned.
      const std::int64_t v = e.get_int64().value_unsafe();
      return v >= 0 ? json(static_cast<std::uint64_t>(v)) : json(v);
    }
    case dom::element_type::UINT64:
      return json(e.get_uint64().value_unsafe());
    case dom::element_type::DOUBLE:
      return json(e.get_double().value_unsafe());
    case dom::element_type::BOOL:
      return json(e.get_bool().value_unsafe());
    case dom::element_type::NULL_VALUE:
      break;
  }
  return json(nullptr);
}

// One per thread: its buffers grow to the largest text it parsed (at most
// kFastParseMaxBytes) and are reused by every later parse. nullptr when
// `text` is too long for it, or it could not be set up.
dom::parser* thread_parser(std::string_view text) {
  if (text.size() > kFastParseMaxBytes) return nullptr;
  thread_local std::unique_ptr<dom::parser> parser;
  if (!parser) {
    auto made = std::make_unique<dom::parser>(kFastParseMaxBytes);
    if (made->allocate(4096, kMaxJsonDepth) != simdjson::SUCCESS) return nullptr;
    parser = std::move(made);
  }
  return parser.get();
}

// `text` parsed by simdjson (copied into the parser's padded buffer: a body
// carries no SIMD padding); false when it refused it.
bool fast_parse(std::string_view text, dom::element& root) {
  dom::parser* parser = thread_parser(text);
  return parser != nullptr &&
         parser->parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root) == simdjson::SUCCESS;
}

}  // namespace

std::optional<nlohmann::json> parse_json_fast(std::string_view text, bool* repeated_key) {
  dom::element root;
  if (!fast_parse(text, root)) return std::nullopt;
  bool repeated = false;
  json doc = to_json(root, repeated);
  if (repeated_key != nullptr) *repeated_key = repeated;
  return doc;
}

bool is_json(std::string_view text) {
  dom::element root;
  return fast_parse(text, root) || json::accept(text);
}

}  // namespace modelgw::util
