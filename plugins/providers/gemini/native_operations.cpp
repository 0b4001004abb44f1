#include "native_operations.h"

#include <modelgw/plugin.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace mgw::gemini {

using namespace mgw::provider;

namespace {

constexpr std::array<std::string_view, 2> kGeminiServed = {MGW_OPERATION_EMBEDDINGS,
                                                           MGW_OPERATION_COUNT_TOKENS};

std::string gemini_served_list() {
  std::string out;
  for (std::string_view s : kGeminiServed) {
    out += out.empty() ? "" : ", ";
    out += s;
  }
  return out;
}

}  // namespace

bool read_native_operations(const Json& cfg, std::vector<std::string>& out, std::string& error) {
  out.clear();
  const Json* ops = member(cfg, "native_operations");
  if (ops == nullptr) {
    out.assign(kGeminiServed.begin(), kGeminiServed.end());
    return true;
  }
  if (!ops->is_array()) {
    error = "native_operations: must be an array of operation names (" + gemini_served_list() + ")";
    return false;
  }
  for (std::size_t i = 0; i < ops->size(); ++i) {
    const Json& op = (*ops)[i];
    const std::string where = "native_operations[" + std::to_string(i) + "]";
    if (!op.is_string()) {
      error = where + ": must be a string";
      return false;
    }
    const std::string& name = op.get_ref<const std::string&>();
    if (std::find(kGeminiServed.begin(), kGeminiServed.end(), name) == kGeminiServed.end()) {
      // An operation name is no secret, but it may be anything: quote a printable prefix.
      std::string shown = name.substr(0, 40);
      std::replace_if(
          shown.begin(), shown.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
      error = where + ": '" + shown + "' is not an operation the gemini provider serves natively (" +
              gemini_served_list() + ")";
      return false;
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) {
      out.push_back(name);
    }
  }
  return true;
}

}  // namespace mgw::gemini
