// Every piece of text a chat request sends upstream, with the path a client
// can act on ("messages[2].content[0].text"): message contents (a string, or
// the "text" of any content part whatever its type), tool-call arguments and
// the legacy function_call arguments. Filled prompt variables are in these too:
// a named prompt is expanded into messages before this runs.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace modelgw::pii {

struct TextRef {
  enum class Kind { content, part_text, tool_arguments, function_arguments };
  nlohmann::json* node = nullptr;  // a JSON string inside the request
  Kind kind = Kind::content;
  std::size_t message = 0;
  std::size_t index = 0;  // the part or the tool call

  // Built only when needed (a finding): scanning clean text costs no strings.
  std::string path() const;
};

// Calls f(TextRef) for each string piece, in request order.
template <typename F>
void for_each_request_text(nlohmann::json& request, F&& f) {
  auto messages = request.find("messages");
  if (messages == request.end() || !messages->is_array()) return;
  for (std::size_t i = 0; i < messages->size(); ++i) {
    nlohmann::json& m = (*messages)[i];
    if (!m.is_object()) continue;
    if (auto c = m.find("content"); c != m.end()) {
      if (c->is_string()) {
        f(TextRef{&*c, TextRef::Kind::content, i, 0});
      } else if (c->is_array()) {
        for (std::size_t j = 0; j < c->size(); ++j) {
          nlohmann::json& part = (*c)[j];
          if (!part.is_object()) continue;
          if (auto t = part.find("text"); t != part.end() && t->is_string()) {
            f(TextRef{&*t, TextRef::Kind::part_text, i, j});
          }
        }
      }
    }
    if (auto calls = m.find("tool_calls"); calls != m.end() && calls->is_array()) {
      for (std::size_t k = 0; k < calls->size(); ++k) {
        nlohmann::json& call = (*calls)[k];
        if (!call.is_object()) continue;
        auto fn = call.find("function");
        if (fn == call.end() || !fn->is_object()) continue;
        if (auto a = fn->find("arguments"); a != fn->end() && a->is_string()) {
          f(TextRef{&*a, TextRef::Kind::tool_arguments, i, k});
        }
      }
    }
    if (auto fc = m.find("function_call"); fc != m.end() && fc->is_object()) {
      if (auto a = fc->find("arguments"); a != fc->end() && a->is_string()) {
        f(TextRef{&*a, TextRef::Kind::function_arguments, i, 0});
      }
    }
  }
}

}  // namespace modelgw::pii
