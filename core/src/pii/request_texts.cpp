#include "pii/request_texts.h"

namespace modelgw::pii {

std::string TextRef::path() const {
  std::string p = "messages[" + std::to_string(message) + "]";
  switch (kind) {
    case Kind::content:
      return p + ".content";
    case Kind::part_text:
      return p + ".content[" + std::to_string(index) + "].text";
    case Kind::tool_arguments:
      return p + ".tool_calls[" + std::to_string(index) + "].function.arguments";
    case Kind::function_arguments:
      return p + ".function_call.arguments";
  }
  return p;
}

}  // namespace modelgw::pii
