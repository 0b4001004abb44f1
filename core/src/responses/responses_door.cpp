#include "responses/responses_door.h"

#include "responses/response_events.h"
#include "responses/response_object.h"
#include "responses/responses_request.h"

namespace modelgw::responses {
namespace {

class Shaper final : public chat::AnswerShaper {
 public:
  explicit Shaper(nlohmann::json echo) : echo_(std::move(echo)) {}

  std::optional<std::string> whole(std::string_view chat_completion, std::string_view request_id) override {
    return whole_response(chat_completion, echo_, request_id);
  }
  bool chunk(std::string_view chunk_json, std::string_view request_id, std::string& out) override {
    return writer(request_id).chunk(chunk_json, out);
  }
  void finish(const std::optional<mgw_usage>& usage, std::string_view request_id, std::string& out) override {
    std::optional<StreamUsage> counted;
    if (usage) {
      counted = StreamUsage{usage->prompt_tokens, usage->completion_tokens, usage->cached_prompt_tokens, 0};
    }
    writer(request_id).finish(counted, out);
  }
  void fail(const http::ApiError& error, std::string_view request_id, std::string& out) override {
    writer(request_id).fail(error, out);
  }

 private:
  ResponseEventWriter& writer(std::string_view request_id) {
    if (!writer_) writer_.emplace(echo_, std::string(request_id));
    return *writer_;
  }

  nlohmann::json echo_;
  std::optional<ResponseEventWriter> writer_;
};

}  // namespace

std::variant<chat::DoorRequest, http::ApiError> ResponsesDoor::translate(nlohmann::json body) const {
  auto translated = translate_request(std::move(body));
  if (auto* err = std::get_if<http::ApiError>(&translated)) return std::move(*err);
  auto& t = std::get<TranslatedRequest>(translated);
  chat::DoorRequest out;
  out.shaper = std::make_unique<Shaper>(std::move(t.echo));
  out.chat = std::move(t.chat);
  return out;
}

std::string ResponsesDoor::param_name(std::string_view chat_param) const {
  // The chat members this door writes, by their Responses names. A message
  // path (messages[3].content) is named by the whole input: instructions
  // and items do not map one to one onto messages.
  if (chat_param == "max_tokens" || chat_param == "max_completion_tokens") return "max_output_tokens";
  if (chat_param.substr(0, 8) == "messages") return "input";
  if (chat_param.substr(0, 15) == "response_format") return "text.format";
  if (chat_param == "reasoning_effort") return "reasoning.effort";
  if (chat_param == "verbosity") return "text.verbosity";
  if (chat_param.substr(0, 5) == "tools") return "tools";
  return std::string(chat_param);
}

}  // namespace modelgw::responses
