#include "json_text.h"

namespace fake_upstream {

void appendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t plainStart = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    // Copy the run of characters that need no escaping in one go.
    out.append(s.data() + plainStart, i - plainStart);
    plainStart = i + 1;
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      default:
        out.append("\\u00");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
    }
  }
  out.append(s.data() + plainStart, s.size() - plainStart);
  out.push_back('"');
}

void appendJsonStringOrNull(std::string& out, const char* s) {
  if (s == nullptr) {
    out.append("null");
  } else {
    appendJsonString(out, s);
  }
}

}  // namespace fake_upstream
