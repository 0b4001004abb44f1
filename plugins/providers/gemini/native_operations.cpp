#include "native_operations.h"

#include <modelgw/plugin.h>
#include <modelgw/provider/native_operations.hpp>

namespace mgw::gemini {

bool read_native_operations(const provider::Json& cfg, std::vector<std::string>& out, std::string& error) {
  const std::vector<std::string_view> served = {MGW_OPERATION_EMBEDDINGS, MGW_OPERATION_COUNT_TOKENS};
  return provider::read_native_operations(cfg, served, served, "the gemini provider", out, error);
}

}  // namespace mgw::gemini
