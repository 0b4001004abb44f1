// The built-in dataset, read once on first use (at start-up, when the
// catalog is priced), then looked up by the package's own match rules.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <modelgw/pricing.h>

#include <pcre2.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace modelgw::pricing {
namespace detail {
extern const std::string_view kDataset;
}  // namespace detail

namespace {

// A dataset regex. The dataset's are JavaScript regexes with lookaheads, so
// PCRE2 (already the tokenizer's engine), not RE2. Matched at start-up only.
class Pattern {
 public:
  explicit Pattern(const std::string& text) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), PCRE2_UTF, &error, &offset,
                          nullptr);
  }
  ~Pattern() { pcre2_code_free(code_); }
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;

  bool search(std::string_view subject) const {
    if (code_ == nullptr) return false;  // a pattern PCRE2 cannot compile matches nothing
    pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_, nullptr);
    const int rc =
        pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0, data, nullptr);
    pcre2_match_data_free(data);
    return rc >= 0;
  }

 private:
  pcre2_code* code_ = nullptr;
};

// One node of a match rule: equals, starts_with, ends_with, contains, regex,
// or (any child), and (every child).
struct Rule {
  enum Kind { equals, starts_with, ends_with, contains, regex, any, every, never } kind = never;
  std::string text;
  std::shared_ptr<const Pattern> pattern;
  std::vector<Rule> children;

  bool matches(std::string_view model) const {
    switch (kind) {
      case equals:
        return model == text;
      case starts_with:
        return model.substr(0, text.size()) == text;
      case ends_with:
        return model.size() >= text.size() && model.substr(model.size() - text.size()) == text;
      case contains:
        return model.find(text) != std::string_view::npos;
      case regex:
        return pattern && pattern->search(model);
      case any:
        for (const auto& c : children) {
          if (c.matches(model)) return true;
        }
        return false;
      case every:
        for (const auto& c : children) {
          if (!c.matches(model)) return false;
        }
        return !children.empty();
      case never:
        break;
    }
    return false;
  }
};

Rule rule_of(const nlohmann::json& j) {
  Rule r;
  if (!j.is_object() || j.size() != 1) return r;
  // Not `*j.items().begin()`: that binds to a proxy that dies at the end of the
  // statement (ASan: stack-use-after-scope). The object iterator owns nothing.
  const auto first = j.begin();
  const std::string& key = first.key();
  const nlohmann::json& value = first.value();
  if (value.is_string()) {
    r.text = value.get<std::string>();
    if (key == "equals") r.kind = Rule::equals;
    if (key == "starts_with") r.kind = Rule::starts_with;
    if (key == "ends_with") r.kind = Rule::ends_with;
    if (key == "contains") r.kind = Rule::contains;
    if (key == "regex") {
      r.kind = Rule::regex;
      r.pattern = std::make_shared<const Pattern>(r.text);
    }
  } else if (value.is_array() && (key == "or" || key == "and")) {
    r.kind = key == "or" ? Rule::any : Rule::every;
    for (const auto& c : value) r.children.push_back(rule_of(c));
  }
  return r;
}

struct Model {
  Rule match;
  Prices prices;
};

struct Book {
  std::string version;
  std::vector<std::pair<std::string, std::vector<Model>>> vendors;
};

const Book& book() {
  static const Book b = [] {
    Book out;
    const auto doc = nlohmann::json::parse(detail::kDataset);
    out.version = doc.at("version").get<std::string>();
    for (const auto& [vendor, models] : doc.at("vendors").items()) {
      std::vector<Model> list;
      for (const auto& m : models) {
        list.push_back(
            Model{rule_of(m.at("match")),
                  Prices{m.at("input").get<std::int64_t>(), m.at("output").get<std::int64_t>(),
                         m.at("cached").get<std::int64_t>(), m.at("cache_write").get<std::int64_t>()}});
      }
      out.vendors.emplace_back(vendor, std::move(list));
    }
    return out;
  }();
  return b;
}

}  // namespace

std::optional<Prices> builtin_prices(std::string_view vendor, std::string_view model) {
  for (const auto& [name, models] : book().vendors) {
    if (name != vendor) continue;
    for (const auto& m : models) {
      if (m.match.matches(model)) return m.prices;
    }
  }
  return std::nullopt;
}

std::string_view dataset_version() {
  return book().version;
}

}  // namespace modelgw::pricing
