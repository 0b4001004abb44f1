#include "decoder.h"

#include <modelgw/sdk.hpp>

namespace mgw::anthropic {

namespace {

using AnyDecoder = std::variant<StreamDecoder, MessagesStreamDecoder>;

AnyDecoder anthropic_decoder_for(const ProviderConfig& config, const mgw_call_context& call) {
  if (operation(call) == MGW_OPERATION_MESSAGES) {
    return AnyDecoder(std::in_place_type<MessagesStreamDecoder>, config, call);
  }
  return AnyDecoder(std::in_place_type<StreamDecoder>, config, call);
}

}  // namespace

Decoder::Decoder(const ProviderConfig& config, const mgw_call_context& call)
    : impl_(anthropic_decoder_for(config, call)) {}

void Decoder::feed(std::string_view bytes, const mgw_response_sink& out) {
  std::visit([&](auto& d) { d.feed(bytes, out); }, impl_);
}

void Decoder::end(const mgw_response_sink& out) {
  std::visit([&](auto& d) { d.end(out); }, impl_);
}

void Decoder::fail_internal(const mgw_response_sink& out) noexcept {
  // Not std::visit, which may throw bad_variant_access: this runs in a catch.
  if (auto* m = std::get_if<MessagesStreamDecoder>(&impl_)) {
    m->fail_internal(out);
  } else if (auto* c = std::get_if<StreamDecoder>(&impl_)) {
    c->fail_internal(out);
  }
}

}  // namespace mgw::anthropic
