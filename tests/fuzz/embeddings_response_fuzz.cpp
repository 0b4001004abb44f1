// A provider plugin's embeddings answer (ABI 1.11, operation "embeddings"),
// through on_parse_response as the gateway calls it, with the request's
// member index as the host gives it. Input: a first line naming the request,
// then the HTTP-like text of provider_response_fuzz.cpp:
//
//   base64 3                  encoding_format and input count (float when the
//                             word is not "base64"; 0..64 inputs, default 2)
//   200                       the status
//   Content-Type: ...         header lines up to a blank line (at most 32)
//   {"object":"list",...}     the body: the rest of the input
//
// Besides the sink's checks (provider_host.h): the hook returns OK and calls
// exactly one of callback_body and callback_error, never a body for a status
// outside 2xx, and a body comes after callback_usage and is OpenAI's list:
// one {"object":"embedding","index":i} per input in order, each embedding a
// string for base64 and an array of numbers for float, "model" the alias.
#include "provider_host.h"

#include <modelgw/sdk.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::string_view next_line(std::string_view& rest) {
  const std::size_t eol = rest.find('\n');
  std::string_view line = rest.substr(0, eol);
  rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

int32_t status_of(std::string_view line) {
  int64_t value = 0;
  bool any = false;
  const bool negative = !line.empty() && line.front() == '-';
  for (const char c : line.substr(negative ? 1 : 0)) {
    if (c < '0' || c > '9') break;
    any = true;
    if (value < 100000000) value = value * 10 + (c - '0');
  }
  if (!any) return 200;
  return static_cast<int32_t>(negative ? -value : value);
}

// The request of the first line: its text and the member index into it.
struct Request {
  std::string text;
  std::vector<mgw_json_member> members;
  std::size_t inputs = 2;
  bool base64 = false;
};

void make_request(std::string_view line, Request& r) {
  constexpr std::size_t kMaxInputs = 64;
  r.base64 = line.substr(0, 6) == "base64";
  const std::size_t space = line.find(' ');
  if (space != std::string_view::npos) {
    std::size_t n = 0;
    for (const char c : line.substr(space + 1)) {
      if (c < '0' || c > '9' || n > kMaxInputs) break;
      n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    r.inputs = n > kMaxInputs ? kMaxInputs : n;
  }
  std::string input = "[";
  for (std::size_t i = 0; i < r.inputs; ++i) input += i == 0 ? "\"x\"" : ",\"x\"";
  input += ']';
  const std::string format = r.base64 ? "\"base64\"" : "\"float\"";
  r.text = "{\"model\":\"fuzz-alias\",\"input\":" + input + ",\"encoding_format\":" + format + "}";
  // Views into r.text, laid out as written above.
  const auto at = [&](std::string_view s) { return r.text.find(s); };
  const char* base = r.text.data();
  const auto member = [&](std::size_t name_at, std::size_t name_len, std::size_t value_at,
                          std::size_t value_len) {
    r.members.push_back(mgw_json_member{{base + name_at, name_len}, {base + value_at, value_len}});
  };
  member(at("model"), 5, at("\"fuzz-alias\""), 12);
  member(at("input"), 5, at("["), input.size());
  member(at("encoding_format"), 15, at(format), format.size());
}

void check_list(const std::string& body, const Request& req) {
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || j.value("object", "") != "list" || j.value("model", "") != "fuzz-alias") {
    fuzz::finding("an embeddings body that is not the list under the alias");
  }
  const auto data = j.find("data");
  if (data == j.end() || !data->is_array() || data->size() != req.inputs) {
    fuzz::finding("an embeddings list without one item per input");
  }
  for (std::size_t i = 0; i < data->size(); ++i) {
    const auto& item = (*data)[i];
    if (!item.is_object() || item.value("object", "") != "embedding" ||
        item.value("index", -1) != static_cast<int>(i)) {
      fuzz::finding("an embeddings item out of order or not an embedding");
    }
    const auto& e = item["embedding"];
    const bool ok = req.base64 ? e.is_string() : e.is_array();
    if (!ok) fuzz::finding("an embedding of the other encoding_format");
    if (!req.base64) {
      for (const auto& v : e) {
        if (!v.is_number()) fuzz::finding("a float embedding holding something else than numbers");
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  Request req;
  make_request(next_line(rest), req);
  const int32_t status = status_of(next_line(rest));
  std::vector<mgw_header> headers;
  while (!rest.empty()) {
    const std::string_view line = next_line(rest);
    if (line.empty()) break;
    if (headers.size() == 32) continue;
    const std::size_t colon = line.find(':');
    std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    headers.push_back(mgw_header{mgw::str(line.substr(0, colon)), mgw::str(value)});
  }

  mgw_call_context ctx = fuzz::call_context(/*stream=*/false);
  ctx.members = req.members.data();
  ctx.member_count = req.members.size();
  fuzz::Transcript t;
  fuzz::expect_ok(fuzz::provider_hooks().on_parse_response(fuzz::provider(), &ctx, status, headers.data(),
                                                           headers.size(), mgw::str(rest), t.sink()),
                  "on_parse_response");
  if (t.bodies() + (t.failed() ? 1 : 0) != 1) {
    fuzz::finding("on_parse_response called callback_body " + std::to_string(t.bodies()) +
                  " times and callback_error " + (t.failed() ? "once" : "never"));
  }
  if (t.bodies() > 0) {
    if (status < 200 || status > 299) fuzz::finding("a body for HTTP status " + std::to_string(status));
    const auto& lines = t.lines();
    if (lines.size() != 2 || lines[0].rfind("usage ", 0) != 0 || lines[1].rfind("body ", 0) != 0) {
      fuzz::finding("an embeddings answer that is not usage, then body");
    }
    check_list(lines[1].substr(5), req);
  }
  return 0;
}
