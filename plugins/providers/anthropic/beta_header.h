// The anthropic-beta header of a native call: the betas the provider config
// sends and the ones the client asked for (ABI 1.11, client_headers), in one
// comma-separated value.
#pragma once

#include <string>
#include <string_view>

namespace mgw::anthropic {

// The names of `configured` then those of `client` not already there, joined
// with ","; names are trimmed, empty ones dropped. Empty when both are.
std::string merged_beta(std::string_view configured, std::string_view client);

}  // namespace mgw::anthropic
