// The stream state the SDK's helper keeps per stream (Traits::Decoder): the
// chat decoder or the Responses one, chosen by the call's operation.
#pragma once

#include "provider_config.h"
#include "responses_stream.h"
#include "stream_decoder.h"

#include <modelgw/plugin.h>

#include <string_view>
#include <variant>

namespace mgw::openai {

class Decoder {
 public:
  Decoder(const ProviderConfig& config, const mgw_call_context& call);

  void feed(std::string_view bytes, const mgw_response_sink& out);
  void end(const mgw_response_sink& out);
  void fail_internal(const mgw_response_sink& out) noexcept;

 private:
  std::variant<StreamDecoder, ResponsesStreamDecoder> impl_;
};

}  // namespace mgw::openai
