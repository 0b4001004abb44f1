#include "json_members.h"

#include <set>
#include <string_view>

namespace mgw::testkit {
namespace {

// A scanner over text already known to be valid JSON: it only finds where
// things end, it does not validate.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void advance() { ++i_; }
  std::size_t pos() const { return i_; }

  // At a '"': moves past the string; says whether it held an escape.
  bool skip_string() {
    bool escaped = false;
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') {
        escaped = true;
        ++i_;
      }
      ++i_;
    }
    ++i_;
    return escaped;
  }

  // Moves past one value of any kind.
  void skip_value() {
    if (at('"')) {
      skip_string();
      return;
    }
    if (at('{') || at('[')) {
      std::size_t depth = 0;
      while (i_ < s_.size()) {
        const char c = s_[i_];
        if (c == '"') {
          skip_string();
          continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') {
          --depth;
          if (depth == 0) {
            ++i_;
            return;
          }
        }
        ++i_;
      }
      return;
    }
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && s_[i_] != ' ' &&
           s_[i_] != '\t' && s_[i_] != '\n' && s_[i_] != '\r') {
      ++i_;
    }
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

std::optional<std::vector<MemberSpan>> index_members(std::string_view object) {
  Scanner sc(object);
  sc.skip_ws();
  if (!sc.at('{')) return std::nullopt;
  sc.advance();
  std::vector<MemberSpan> out;
  std::set<std::string_view> seen;
  sc.skip_ws();
  if (sc.at('}')) return out;
  for (;;) {
    sc.skip_ws();
    if (!sc.at('"')) return std::nullopt;
    MemberSpan m;
    const std::size_t start = sc.pos();
    if (sc.skip_string()) return std::nullopt;  // an escaped key
    m.name_pos = start + 1;
    m.name_len = sc.pos() - start - 2;
    if (!seen.insert(object.substr(m.name_pos, m.name_len)).second) return std::nullopt;  // given twice
    sc.skip_ws();
    if (!sc.at(':')) return std::nullopt;
    sc.advance();
    sc.skip_ws();
    m.value_pos = sc.pos();
    sc.skip_value();
    m.value_len = sc.pos() - m.value_pos;
    out.push_back(m);
    sc.skip_ws();
    if (sc.at(',')) {
      sc.advance();
      continue;
    }
    if (sc.at('}')) return out;
    return std::nullopt;
  }
}

}  // namespace mgw::testkit
