// The index of a request body's top-level members that a host hands
// on_build_request (ABI 1.1, mgw_call_context.members), built as the gateway
// builds it, so the runner can drive a plugin both ways: with the index and
// without it (a 1.0 host, or a body the host will not index).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace mgw::testkit {

struct MemberSpan {
  std::size_t name_pos = 0;  // the key's text between its quotes
  std::size_t name_len = 0;
  std::size_t value_pos = 0;  // the value's JSON text as written
  std::size_t value_len = 0;
};

// The members of `object`, which must be a valid JSON object's text, in the
// order written; nullopt when a key is written with escapes or appears
// twice (the host then gives no index).
std::optional<std::vector<MemberSpan>> index_members(std::string_view object);

}  // namespace mgw::testkit
