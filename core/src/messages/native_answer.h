// POST /v1/messages, the answer side when the provider served Anthropic's
// Messages API natively (plugin.h, "Native operations"): the vendor's own
// message object, or its own events, passed on as they are. The whole body
// gets the call's request_id (spliced in: the content is not parsed and
// written again); each event's data object is framed as `event: <its type>`
// and `data: ...` (Anthropic's events carry no sequence numbers, so nothing
// is renumbered), message_start with the call's request_id; a failure after
// the stream began is an `error` event in Anthropic's envelope.
#pragma once

#include "errors/api_error.h"

#include <optional>
#include <string>
#include <string_view>

namespace modelgw::messages {

class NativeMessageAnswer {
 public:
  explicit NativeMessageAnswer(std::string request_id) : request_id_(std::move(request_id)) {}

  // The provider's message object -> the client's body; nullopt when it is
  // not an object of type "message".
  std::optional<std::string> whole(std::string_view message_object) const;
  // One event's data object -> its SSE event appended to `out`; false when it
  // is not an object with a string `type`.
  bool event(std::string_view data, std::string& out);
  // The stream failed: an `error` event, unless message_stop was passed on.
  void fail(const errors::ApiError& error, std::string& out);

 private:
  std::string request_id_;
  bool stopped_ = false;
};

}  // namespace modelgw::messages
