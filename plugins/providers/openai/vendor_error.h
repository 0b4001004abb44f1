// The vendor's own description of a failure, read from its JSON body.
#pragma once

#include <modelgw/provider/json.hpp>

#include <optional>
#include <string_view>

namespace mgw::openai {

// Fields of an OpenAI error object. Views into the parsed document: valid as
// long as it is. Raw vendor text: mask it (modelgw/provider/secret_mask.hpp)
// before passing it on.
struct VendorError {
  std::string_view message;
  std::string_view type;
  std::string_view code;
  std::string_view param;
};

// Reads OpenAI's {"error": {"message", "type", "param", "code"}} and the
// variants OpenAI-compatible servers send: {"error": "text"}, a top-level
// {"message", "type", "param", "code"} (vLLM, llama.cpp), {"detail": "text"}.
// Returns nullopt when `doc` holds none of these. Non-string members (vLLM's
// numeric code, a null param) read as empty.
std::optional<VendorError> read_vendor_error(const provider::Json& doc);

}  // namespace mgw::openai
