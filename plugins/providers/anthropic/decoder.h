// The stream state the SDK's helper keeps per stream (Traits::Decoder): the
// chat decoder or the Messages one, chosen by the call's operation.
#pragma once

#include "messages_stream.h"
#include "provider_config.h"
#include "stream_decoder.h"

#include <modelgw/plugin.h>

#include <string_view>
#include <variant>

namespace mgw::anthropic {

class Decoder {
 public:
  Decoder(const ProviderConfig& config, const mgw_call_context& call);

  void feed(std::string_view bytes, const mgw_response_sink& out);
  void end(const mgw_response_sink& out);
  void fail_internal(const mgw_response_sink& out) noexcept;

 private:
  std::variant<StreamDecoder, MessagesStreamDecoder> impl_;
};

}  // namespace mgw::anthropic
