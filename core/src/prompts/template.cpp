#include "prompts/template.h"

#include "errors/api_error.h"

#include <algorithm>
#include <array>
#include <optional>

namespace modelgw::prompts {
namespace {

constexpr std::size_t kMaxNameLength = 64;
constexpr std::array<std::string_view, 4> kTemplateRoles = {"system", "developer", "user", "assistant"};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

// One pass over `text`: calls literal(piece) for plain text and
// variable(name) for each placeholder. Returns an error message, or nullopt.
template <typename Literal, typename Variable>
std::optional<std::string> scan(std::string_view text, Literal&& literal, Variable&& variable) {
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find("{{", at);
    if (open == std::string_view::npos) {
      literal(text.substr(at));
      return std::nullopt;
    }
    literal(text.substr(at, open - at));
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) {
      return "'{{' at character " + std::to_string(open) + " is never closed by '}}'";
    }
    std::string_view inner = text.substr(open + 2, close - open - 2);
    while (!inner.empty() && is_space(inner.front())) inner.remove_prefix(1);
    while (!inner.empty() && is_space(inner.back())) inner.remove_suffix(1);
    if (!is_variable_name(inner)) {
      const std::string shown = errors::input_excerpt(text.substr(open, close + 2 - open), 80);
      return "'" + shown + "' at character " + std::to_string(open) +
             " is not a valid placeholder: write {{name}} with a name of letters, digits and '_' "
             "that does not start with a digit (at most 64 characters)";
    }
    variable(inner);
    at = close + 2;
  }
  return std::nullopt;
}

// Calls visit(path, string&) for every text of the messages a template fills.
template <typename Json, typename Visit>
std::optional<TemplateError> for_each_text(Json& messages, Visit&& visit) {
  for (std::size_t i = 0; i < messages.size(); ++i) {
    auto& content = messages[i]["content"];
    const std::string at = "template[" + std::to_string(i) + "].content";
    if (content.is_string()) {
      if (auto e = visit(at, content)) return e;
      continue;
    }
    for (std::size_t j = 0; j < content.size(); ++j) {
      auto& part = content[j];
      if (part.value("type", "") != "text") continue;  // images and the like carry no placeholders
      if (auto e = visit(at + "[" + std::to_string(j) + "].text", part["text"])) return e;
    }
  }
  return std::nullopt;
}

std::optional<TemplateError> check_shape(const nlohmann::json& messages) {
  if (!messages.is_array() || messages.empty()) {
    return TemplateError{"template", "must be a non-empty array of chat messages"};
  }
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const auto& m = messages[i];
    const std::string at = "template[" + std::to_string(i) + "]";
    if (!m.is_object()) return TemplateError{at, "must be an object with role and content"};
    auto role = m.find("role");
    if (role == m.end() || !role->is_string() ||
        std::find(kTemplateRoles.begin(), kTemplateRoles.end(), role->get_ref<const std::string&>()) ==
            kTemplateRoles.end()) {
      return TemplateError{at + ".role", "must be one of system, developer, user, assistant"};
    }
    auto content = m.find("content");
    if (content == m.end() || !(content->is_string() || content->is_array())) {
      return TemplateError{at + ".content", "must be a string or an array of content parts"};
    }
    if (content->is_array()) {
      for (std::size_t j = 0; j < content->size(); ++j) {
        const auto& part = (*content)[j];
        const std::string part_at = at + ".content[" + std::to_string(j) + "]";
        if (!part.is_object() || !part.contains("type") || !part["type"].is_string()) {
          return TemplateError{part_at, "must be a content part object with a string 'type'"};
        }
        if (part["type"] == "text" && !(part.contains("text") && part["text"].is_string())) {
          return TemplateError{part_at + ".text", "a text part needs a string 'text'"};
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace

bool is_variable_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  if (name.front() >= '0' && name.front() <= '9') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::variant<std::vector<std::string>, TemplateError> check_template(const nlohmann::json& messages) {
  if (auto e = check_shape(messages)) return *e;
  std::vector<std::string> names;
  auto error = for_each_text(messages, [&](const std::string& at, const nlohmann::json& text) {
    auto problem = scan(
        text.get_ref<const std::string&>(), [](std::string_view) {},
        [&](std::string_view name) {
          if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
        });
    return problem ? std::optional(TemplateError{at, *problem}) : std::nullopt;
  });
  if (error) return *error;
  return names;
}

std::variant<nlohmann::json, MissingVariable> fill_template(
    const nlohmann::json& messages, const std::map<std::string, std::string>& values) {
  nlohmann::json filled = messages;
  std::optional<MissingVariable> missing;
  for_each_text(filled, [&](const std::string&, nlohmann::json& text) -> std::optional<TemplateError> {
    const auto& source = text.get_ref<const std::string&>();
    std::string out;
    out.reserve(source.size());
    scan(
        source, [&](std::string_view piece) { out.append(piece); },
        [&](std::string_view name) {
          auto it = values.find(std::string(name));
          if (it == values.end()) {
            if (!missing) missing = MissingVariable{std::string(name)};
            return;
          }
          out.append(it->second);
        });
    text = std::move(out);
    return std::nullopt;
  });
  if (missing) return *missing;
  return filled;
}

}  // namespace modelgw::prompts
