// The APIs besides chat this provider serves natively (ABI 1.10,
// on_provider_operations): the config key `native_operations`, and its
// default, which depends on whose server base_url names.
#pragma once

#include <modelgw/provider/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace mgw::openai {

// True when `base_url` is OpenAI's own API (https://api.openai.com, or a
// regional https://<region>.api.openai.com), which serves /v1/responses.
bool is_openai_base_url(std::string_view base_url);

// Reads the optional `native_operations` (an array of operation names, each
// one of MGW_OPERATION_RESPONSES and MGW_OPERATION_EMBEDDINGS; a name given
// twice counts once) into `out`. Absent or null: ["responses", "embeddings"]
// when `base_url` is OpenAI's own, else ["embeddings"], since
// OpenAI-compatible servers often lack /v1/responses but serve /embeddings. Returns false,
// with `error` set to "native_operations…: <problem>", for another type or an
// unknown name.
bool read_native_operations(const provider::Json& cfg, std::vector<std::string>& out, std::string& error);

}  // namespace mgw::openai
