#include "fixtures.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace mgw::testkit {
namespace fs = std::filesystem;

namespace {

constexpr const char* kDefaultConfig = R"({"api_key": "sk-conformance-Secret0123456789abcdef"})";

Json read_json(const fs::path& file) {
  std::string why;
  auto j = parse_json(read_file(file), &why);
  if (!j) throw std::runtime_error(file.string() + ": not JSON: " + why);
  return *j;
}

Json object_member(const Json& j, const char* key, const fs::path& file) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Json::object();
  if (!it->is_object()) throw std::runtime_error(file.string() + ": \"" + key + "\" must be an object");
  return *it;
}

Headers read_headers(const Json& j, const fs::path& file) {
  Headers out;
  const auto it = j.find("headers");
  if (it == j.end() || it->is_null()) return out;
  const auto bad = [&] {
    return std::runtime_error(
        file.string() + ": \"headers\" must be an object of strings or an array of [name, value] pairs");
  };
  if (it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) throw bad();
      out.emplace_back(k, v.get<std::string>());
    }
  } else if (it->is_array()) {
    for (const auto& pair : *it) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) throw bad();
      out.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
    }
  } else {
    throw bad();
  }
  return out;
}

// "body": text as is, any other JSON value as its serialisation; or
// "body_file": a file next to the case.
std::string read_body(const Json& j, const fs::path& file) {
  if (const auto f = j.find("body_file"); f != j.end()) {
    if (!f->is_string()) throw std::runtime_error(file.string() + ": \"body_file\" must be a file name");
    return read_file(file.parent_path() / f->get<std::string>());
  }
  const auto b = j.find("body");
  if (b == j.end()) return {};
  if (b->is_string()) return b->get<std::string>();
  return b->dump();
}

}  // namespace

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> fixture_files(const fs::path& dir, const std::string& sub, const std::string& suffix) {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path where = dir / sub;
  if (!fs::is_directory(where, ec)) return out;
  for (const auto& entry : fs::directory_iterator(where, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

CallSpec call_with(const CallSpec& base, const Json& o) {
  CallSpec c = base;
  const auto text = [&](const char* key, std::string& field) {
    if (const auto it = o.find(key); it != o.end() && it->is_string()) field = it->get<std::string>();
  };
  const auto number = [&](const char* key, std::int64_t& field) {
    if (const auto it = o.find(key); it != o.end() && it->is_number_integer())
      field = it->get<std::int64_t>();
  };
  text("request_id", c.request_id);
  text("alias", c.alias);
  text("upstream_model", c.upstream_model);
  text("operation", c.operation);
  number("created_unix", c.created_unix);
  number("default_max_tokens", c.default_max_tokens);
  number("prompt_tokens", c.prompt_tokens);
  if (const auto it = o.find("stream"); it != o.end() && it->is_boolean()) c.stream = it->get<bool>();
  if (const auto it = o.find("client_headers"); it != o.end() && it->is_object()) {
    c.client_headers.clear();
    for (const auto& [name, value] : it->items()) {
      if (value.is_string()) c.client_headers.emplace_back(name, value.get<std::string>());
    }
  }
  if (const auto it = o.find("request"); it != o.end() && it->is_object()) c.request_json = it->dump();
  return c;
}

Settings load_settings(const fs::path& dir, const std::optional<std::string>& config_override) {
  Settings s;
  if (config_override) {
    const std::string& v = *config_override;
    const auto first = v.find_first_not_of(" \t\r\n");
    s.provider_config = first != std::string::npos && v[first] == '{' ? v : read_file(v);
  } else if (fs::exists(dir / "config.json")) {
    s.provider_config = read_file(dir / "config.json");
  } else {
    s.provider_config = kDefaultConfig;
  }
  if (fs::exists(dir / "conformance.json")) {
    const fs::path file = dir / "conformance.json";
    const Json j = read_json(file);
    if (!j.is_object()) throw std::runtime_error(file.string() + ": must be a JSON object");
    s.call = call_with(s.call, object_member(j, "call", file));
    if (const auto it = j.find("loose_config_keys"); it != j.end()) {
      if (!it->is_array())
        throw std::runtime_error(file.string() + ": \"loose_config_keys\" must be an array");
      for (const auto& k : *it) {
        if (!k.is_string()) throw std::runtime_error(file.string() + ": \"loose_config_keys\" holds names");
        s.loose_config_keys.push_back(k.get<std::string>());
      }
    }
  }
  return s;
}

RequestCase load_request_case(const fs::path& file, const CallSpec& base_call) {
  const Json j = read_json(file);
  if (!j.is_object() || !j.contains("request") || !j["request"].is_object()) {
    throw std::runtime_error(file.string() +
                             ": must be {\"request\": {...client body...}, \"expect\": {...}}");
  }
  RequestCase c;
  c.file = file;
  c.has_expect = j.contains("expect");
  c.name = file.stem().string();
  c.body = j["request"].dump();
  c.expect = object_member(j, "expect", file);
  c.call = call_with(base_call, object_member(j, "call", file));
  return c;
}

ResponseCase load_response_case(const fs::path& file, const CallSpec& base_call) {
  const Json j = read_json(file);
  if (!j.is_object()) throw std::runtime_error(file.string() + ": must be a JSON object");
  ResponseCase c;
  c.file = file;
  c.has_expect = j.contains("expect");
  c.name = file.stem().string();
  const auto status = j.find("status");
  if (status == j.end() || !status->is_number_integer()) {
    throw std::runtime_error(file.string() + ": \"status\" must be the vendor's HTTP status");
  }
  c.status = status->get<int>();
  c.headers = read_headers(j, file);
  c.body = read_body(j, file);
  c.expect = object_member(j, "expect", file);
  c.call = call_with(base_call, object_member(j, "call", file));
  return c;
}

StreamFixture load_stream_fixture(const fs::path& sse_file, const CallSpec& base_call) {
  StreamFixture f;
  const std::string file = sse_file.filename().string();
  f.name = file.substr(0, file.size() - 4);  // without ".sse"
  f.bytes_file = sse_file;
  f.bytes = read_file(sse_file);
  f.expected_file = sse_file.parent_path() / (f.name + ".expected.jsonl");
  f.call = base_call;
  f.call.stream = true;
  const fs::path call_file = sse_file.parent_path() / (f.name + ".call.json");
  if (fs::exists(call_file)) f.call = call_with(f.call, read_json(call_file));
  if (fs::exists(f.expected_file)) {
    std::vector<Json> lines;
    std::istringstream in(read_file(f.expected_file));
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::string why;
      auto j = parse_json(line, &why);
      if (!j || !j->is_object() || j->size() != 1 ||
          !(j->contains("chunk") || j->contains("usage") || j->contains("error"))) {
        throw std::runtime_error(
            f.expected_file.string() + ":" + std::to_string(n) +
            ": each line is {\"chunk\": {...}}, {\"usage\": {...}} or {\"error\": {...}}");
      }
      lines.push_back(std::move(*j));
    }
    f.expected = std::move(lines);
  }
  return f;
}

}  // namespace mgw::testkit

namespace mgw::testkit {

void write_expect(const fs::path& file, const Json& expect) {
  auto doc = nlohmann::ordered_json::parse(read_file(file));
  doc["expect"] = nlohmann::ordered_json::parse(expect.dump());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

}  // namespace mgw::testkit
