#include "util/json_body.h"

#include "util/json_depth.h"
#include "util/json_dom.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

namespace modelgw::util {
namespace {

// Walks a body that failed to parse, to say where it failed: the byte of a
// syntax error, or the member path of a number out of range (nlohmann reports
// "1e999" as out_of_range 406, not as a parse_error). Run on the error path
// only, so the parse of a good body stays a single DOM parse.
class FailureFinder {
 public:
  using json = nlohmann::json;

  std::size_t byte = 0;
  bool overflow = false;  // a number out of range; `path` and `number` say which
  std::string path;       // "temperature", "messages[0].content[2].x"; empty: the body itself
  std::string number;     // the literal as written

  bool null() { return value_done(); }
  bool boolean(bool) { return value_done(); }
  bool number_integer(json::number_integer_t) { return value_done(); }
  bool number_unsigned(json::number_unsigned_t) { return value_done(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value_done(); }
  bool string(json::string_t&) { return value_done(); }
  bool binary(json::binary_t&) { return value_done(); }
  bool start_object(std::size_t) { return push(false); }
  bool start_array(std::size_t) { return push(true); }
  bool key(json::string_t& k) {
    levels_.back().key = k;
    return true;
  }
  bool end_object() { return pop(); }
  bool end_array() { return pop(); }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e) {
    byte = position;
    if (e.id == 406) {
      overflow = true;
      number = last_token;
      for (const auto& level : levels_) {
        if (level.array) {
          path.append("[").append(std::to_string(level.index)).append("]");
        } else {
          path.append(path.empty() ? "" : ".").append(level.key);
        }
      }
    }
    return false;
  }

 private:
  struct Level {
    bool array = false;
    std::size_t index = 0;  // of the element being read, in an array
    std::string key;        // of the member being read, in an object
  };
  std::vector<Level> levels_;

  bool value_done() {
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
    return true;
  }
  bool push(bool array) {
    levels_.push_back(Level{array, 0, {}});
    return true;
  }
  bool pop() {
    levels_.pop_back();
    return value_done();
  }
};

errors::ApiError parse_failure(std::string_view body, std::string_view members) {
  FailureFinder finder;
  nlohmann::json::sax_parse(body, &finder);
  if (!finder.overflow) {
    return errors::bad_request(
        "invalid_json", "the request body is not valid JSON (byte " + std::to_string(finder.byte) + ")");
  }
  const std::string number = errors::input_excerpt(finder.number, 32);
  if (finder.path.empty()) {
    return errors::bad_request("invalid_parameter", "the request body is the number " + number +
                                                        ", which is out of range; send a JSON object with " +
                                                        std::string(members));
  }
  std::string param = errors::input_excerpt(finder.path, 128);
  return errors::bad_request("invalid_parameter",
                             "'" + param + "' is " + number +
                                 ", a number out of range: JSON numbers must fit a 64-bit float (about "
                                 "1.8e308 in magnitude)",
                             param);
}

}  // namespace

std::string type_name(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  return "an object";
}

namespace {

// The names of one open object so far: a few in a list (most objects), a
// set past that (an object of 100,000 names costs no more than its parse).
class ObjectNames {
 public:
  // False when `name` was given before in this object.
  bool add(const std::string& name) {
    if (set_.empty()) {
      if (std::find(list_.begin(), list_.end(), name) != list_.end()) return false;
      if (list_.size() < kListed) {
        list_.push_back(name);
        return true;
      }
      set_.insert(list_.begin(), list_.end());
    }
    return set_.insert(name).second;
  }

 private:
  static constexpr std::size_t kListed = 16;
  std::vector<std::string> list_;
  std::unordered_set<std::string> set_;
};

// nlohmann's parse, noting a member name given twice in one object (the
// parse keeps the last): the callback sees each key with the names of its
// object so far.
nlohmann::json parse_noting_repeats(std::string_view body, bool& repeated) {
  std::vector<ObjectNames> names;  // of each open object
  return nlohmann::json::parse(
      body,
      [&](int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        if (event == Event::object_start) {
          names.emplace_back();
        } else if (event == Event::object_end && !names.empty()) {
          names.pop_back();
        } else if (event == Event::key && !names.empty()) {
          repeated = !names.back().add(parsed.get_ref<const std::string&>()) || repeated;
        }
        return true;
      },
      /*allow_exceptions=*/false);
}

}  // namespace

std::variant<nlohmann::json, errors::ApiError> parse_json_object(std::string_view body,
                                                                 std::string_view members,
                                                                 bool* repeated_key) {
  bool repeated = false;
  auto noted = [&](nlohmann::json doc) {
    if (repeated_key != nullptr) *repeated_key = repeated;
    return doc;
  };
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return errors::bad_request("invalid_json",
                               "the request body is empty; send a JSON object with " + std::string(members));
  }
  // The fast parse takes every body nlohmann would, to the same document;
  // what it refuses goes the checked way below, which says why.
  if (auto doc = parse_json_fast(body, &repeated)) {
    if (doc->is_object()) return noted(std::move(*doc));
    return errors::bad_request("invalid_json",
                               "the request body must be a JSON object, not " + type_name(*doc));
  }
  if (json_nesting_depth(body, kMaxJsonDepth) > kMaxJsonDepth) {
    return errors::bad_request("invalid_json", "the request body nests arrays/objects deeper than " +
                                                   std::to_string(kMaxJsonDepth) + " levels");
  }
  nlohmann::json doc = parse_noting_repeats(body, repeated);
  if (doc.is_discarded()) return parse_failure(body, members);
  if (!doc.is_object()) {
    return errors::bad_request("invalid_json",
                               "the request body must be a JSON object, not " + type_name(doc));
  }
  return noted(std::move(doc));
}

}  // namespace modelgw::util
