#include "harness/checks.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

namespace it {

// "req_" and 24 base62 characters.
bool is_request_id(const std::string& id) {
  return id.size() == 28 && id.rfind("req_", 0) == 0 &&
         std::all_of(id.begin() + 4, id.end(), [](unsigned char c) { return std::isalnum(c) != 0; });
}

::testing::AssertionResult IsApiError(const HttpResponse& r, int status, const std::string& type,
                                      const std::string& code, const std::optional<std::string>& param) {
  auto fail = [&r](const std::string& what) {
    return ::testing::AssertionFailure() << what << "\n  status " << r.status << ", body: " << r.body;
  };
  if (r.status != status) return fail("expected status " + std::to_string(status));
  if (r.header("content-type").rfind("application/json", 0) != 0) {
    return fail("content-type is '" + r.header("content-type") + "', not application/json");
  }
  const std::string header_id = r.header("x-request-id");
  if (!is_request_id(header_id)) return fail("X-Request-Id '" + header_id + "' is not a request id");
  const json body = r.json();
  if (body.is_discarded() || !body.is_object()) return fail("the body is not a JSON object");
  if (body.size() != 1 || !body.contains("error") || !body["error"].is_object()) {
    return fail("the body is not exactly {\"error\":{...}}");
  }
  const json& e = body["error"];
  for (const char* member : {"type", "code", "message", "param", "request_id"}) {
    if (!e.contains(member)) return fail(std::string("error.") + member + " is missing");
  }
  if (e["type"] != type) return fail("expected error.type '" + type + "'");
  if (e["code"] != code) return fail("expected error.code '" + code + "'");
  if (!e["message"].is_string() || e["message"].get<std::string>().empty())
    return fail("error.message is empty");
  if (param) {
    if (e["param"] != *param) return fail("expected error.param '" + *param + "'");
  } else if (!e["param"].is_null()) {
    return fail("expected error.param null");
  }
  if (e["request_id"] != header_id) return fail("error.request_id differs from X-Request-Id");
  return ::testing::AssertionSuccess();
}

json user_messages(const std::string& user_text) {
  return json::array({{{"role", "user"}, {"content", user_text}}});
}

std::string chat_body(const std::string& model, const std::string& user_text, bool stream) {
  json body = {{"model", model}, {"messages", user_messages(user_text)}};
  if (stream) body["stream"] = true;
  return body.dump();
}

namespace {

std::string text_of(const json& m) {
  const auto c = m.find("content");
  if (c == m.end()) return {};
  if (c->is_string()) return c->get<std::string>();
  if (!c->is_array()) return {};
  std::string out;
  bool first = true;
  for (const auto& part : *c) {
    if (part.is_object() && part.value("type", "") == "text" && part.contains("text") &&
        part["text"].is_string()) {
      if (!first) out += ' ';
      out += part["text"].get<std::string>();
      first = false;
    }
  }
  return out;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

std::string fake_reply(const json& messages) {
  std::string user;
  for (const auto& m : messages) {
    if (m.value("role", "") == "user") user = text_of(m);
  }
  std::string reply = "echo:";
  for (const auto& w : words(user)) reply += " " + w;
  return reply;
}

json fake_usage(const json& messages, const std::string& reply) {
  std::int64_t prompt = 0;
  for (const auto& m : messages) prompt += 4 + static_cast<std::int64_t>((text_of(m).size() + 3) / 4);
  const auto completion = static_cast<std::int64_t>(words(reply).size());
  return {
      {"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

StreamSummary summarize(const std::vector<SseEvent>& events) {
  StreamSummary s;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::string& data = events[i].data;
    if (data == "[DONE]") {
      ++s.done_count;
      continue;
    }
    json chunk = json::parse(data, nullptr, false);
    if (chunk.is_discarded() || !chunk.is_object()) {
      s.all_json = false;
      continue;
    }
    s.raw.push_back(data);
    if (chunk.contains("error")) s.error = chunk;
    if (chunk.contains("choices") && chunk["choices"].is_array()) {
      if (chunk["choices"].empty() && chunk.contains("usage") && chunk["usage"].is_object())
        s.usage_chunk = chunk;
      for (const auto& choice : chunk["choices"]) {
        const auto delta = choice.find("delta");
        if (delta == choice.end() || !delta->is_object()) continue;
        const auto content = delta->find("content");
        if (content != delta->end() && content->is_string() && !content->get<std::string>().empty()) {
          s.deltas.push_back(content->get<std::string>());
          s.content += content->get<std::string>();
          s.content_event_index.push_back(i);
        }
      }
    }
    s.chunks.push_back(std::move(chunk));
  }
  s.done_last = !events.empty() && events.back().data == "[DONE]";
  return s;
}

std::vector<std::string> lines_containing(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) out.push_back(line);
  }
  return out;
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("'" + from + "' is not in the text");
  return text.replace(at, from.size(), to);
}

}  // namespace it
