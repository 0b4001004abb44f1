#include "messages/messages_door.h"

#include "chat/body_members.h"
#include "logging/request_log.h"
#include "messages/message_events.h"
#include "messages/message_object.h"
#include "messages/native_answer.h"
#include "messages/native_request.h"

namespace modelgw::messages {
namespace {

class MessagesShaper final : public chat::AnswerShaper {
 public:
  MessagesShaper(std::string alias, std::string request_id)
      : alias_(std::move(alias)), request_id_(std::move(request_id)) {}

  void use_native(bool on) override {
    if (on) {
      native_.emplace(request_id_);
    } else {
      native_.reset();
    }
  }

  std::optional<std::string> whole(std::string_view chat_completion, std::string_view request_id) override {
    if (native_) return native_->whole(chat_completion);
    std::size_t unparsed = 0;
    auto body = whole_message(chat_completion, alias_, request_id, &unparsed);
    if (unparsed > 0) {
      logging::for_request(request_id)
          .warn("{} tool call(s) with arguments that are not a JSON object were answered with input {{}}",
                unparsed);
    }
    return body;
  }
  bool chunk(std::string_view chunk_json, std::string_view /*request_id*/, std::string& out) override {
    if (native_) return native_->event(chunk_json, out);
    return writer().chunk(chunk_json, out);
  }
  void finish(const std::optional<mgw_usage>& usage, std::string_view request_id, std::string& out) override {
    if (native_) return;  // the vendor's own message_stop has been passed on
    std::optional<MessageUsage> counted;
    if (usage) {
      counted = MessageUsage{usage->prompt_tokens, usage->completion_tokens, usage->cached_prompt_tokens,
                             usage->cache_write_prompt_tokens};
    }
    writer().finish(counted, out);
    if (const std::size_t dropped = writer().dropped_arguments(); dropped > 0) {
      logging::for_request(request_id)
          .warn("{} tool-call argument piece(s) came after their call's block was stopped and were dropped",
                dropped);
    }
  }
  void fail(const errors::ApiError& error, std::string_view /*request_id*/, std::string& out) override {
    if (native_) return native_->fail(error, out);
    writer().fail(error, out);
  }

 private:
  MessageEventWriter& writer() {
    if (!writer_) writer_.emplace(alias_, request_id_);
    return *writer_;
  }

  std::string alias_;
  std::string request_id_;
  std::optional<MessageEventWriter> writer_;
  std::optional<NativeMessageAnswer> native_;  // set while the attempt is native
};

}  // namespace

net::Task<std::variant<chat::DoorRequest, errors::ApiError>> MessagesDoor::open(nlohmann::json body,
                                                                                std::string_view text,
                                                                                std::int64_t /*tenant_id*/,
                                                                                std::string_view request_id,
                                                                                bool native) const {
  auto translated = translate_messages(body, MessagesOptions{false, native});
  if (auto* err = std::get_if<errors::ApiError>(&translated)) co_return std::move(*err);
  auto& t = std::get<TranslatedMessages>(translated);
  chat::DoorRequest out;
  out.shaper = std::make_unique<MessagesShaper>(std::move(t.alias), std::string(request_id));
  out.chat = std::move(t.chat);
  if (native) {
    // The client's own body, for a provider that serves this API natively.
    out.native = native_request(std::move(body));
    // The native request is the body as sent: no serialisation of it.
    if (chat::opens_object(text)) out.native_text = text;
  }
  co_return out;
}

std::string MessagesDoor::param_name(std::string_view chat_param) const {
  // The chat members this door writes, by their Messages names. A message
  // path (messages[3].content) is named by the whole list: the system
  // prompt and tool results do not map one to one onto chat messages.
  if (chat_param == "max_tokens" || chat_param == "max_completion_tokens") return "max_tokens";
  if (chat_param.substr(0, 8) == "messages") return "messages";
  if (chat_param == "stop") return "stop_sequences";
  if (chat_param == "user") return "metadata.user_id";
  if (chat_param.substr(0, 5) == "tools") return "tools";
  if (chat_param == "parallel_tool_calls") return "tool_choice.disable_parallel_tool_use";
  if (chat_param == "reasoning_effort") return "thinking";
  if (chat_param.substr(0, 15) == "response_format") return "output_config.format";
  return std::string(chat_param);
}

std::variant<nlohmann::json, errors::ApiError> count_tokens_request(const nlohmann::json& body) {
  auto translated = translate_messages(body, MessagesOptions{true});
  if (auto* err = std::get_if<errors::ApiError>(&translated)) return std::move(*err);
  auto& chat = std::get<TranslatedMessages>(translated).chat;
  chat.erase("stream");
  chat.erase("stream_options");
  return std::move(chat);
}

}  // namespace modelgw::messages
