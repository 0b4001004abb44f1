// The sizes the ABI's structs had in the version that introduced them, as
// plugin.h freezes them (MGW_<TYPE>_SIZE_1_<n>): what a host or plugin of
// that version fills in as struct_size. A conforming reader accepts any
// struct_size at least this large and reads a later field only when
// struct_size covers it.
#pragma once

#include <modelgw/plugin.h>

#include <cstddef>

namespace mgw::testkit {

inline constexpr std::size_t kHostApiSize10 = MGW_HOST_API_SIZE_1_0;
inline constexpr std::size_t kDescriptorSize10 = MGW_PLUGIN_DESCRIPTOR_SIZE_1_0;
inline constexpr std::size_t kProviderHooksSize10 = MGW_PROVIDER_HOOKS_SIZE_1_0;
inline constexpr std::size_t kCallContextSize10 = MGW_CALL_CONTEXT_SIZE_1_0;
inline constexpr std::size_t kRequestSinkSize10 = MGW_REQUEST_SINK_SIZE_1_0;
inline constexpr std::size_t kResponseSinkSize10 = MGW_RESPONSE_SINK_SIZE_1_0;
inline constexpr std::size_t kUsageSize10 = MGW_USAGE_SIZE_1_0;
inline constexpr std::size_t kErrorInfoSize10 = MGW_ERROR_INFO_SIZE_1_0;
// ABI 1.4: a provider declares its request parameters.
inline constexpr std::size_t kProviderHooksSize14 = MGW_PROVIDER_HOOKS_SIZE_1_4;
inline constexpr std::size_t kParamSpecSize14 = MGW_PARAM_SPEC_SIZE_1_4;
// ABI 1.10: a provider declares the operations it serves natively.
inline constexpr std::size_t kProviderHooksSize110 = MGW_PROVIDER_HOOKS_SIZE_1_10;

// A struct_size beyond this is not a size but an unset field: no minor
// version will grow a struct that much.
inline constexpr std::size_t kPlausibleStructSize = 4096;

}  // namespace mgw::testkit
