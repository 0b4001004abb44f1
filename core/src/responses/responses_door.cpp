#include "responses/responses_door.h"

#include "responses/native_answer.h"
#include "responses/native_request.h"
#include "responses/response_events.h"
#include "responses/response_object.h"
#include "responses/response_store.h"
#include "responses/responses_request.h"
#include "util/json_write.h"

#include <chrono>

namespace modelgw::responses {
namespace {

class Shaper final : public chat::AnswerShaper {
 public:
  Shaper(nlohmann::json echo, std::string request_id)
      : echo_(std::move(echo)), request_id_(std::move(request_id)) {}

  // Keep the answered turn in `store`: it continues `previous_id`, and its
  // own messages start at `own_from` in the chat request.
  void keep_in(ResponseStore* store, std::int64_t tenant_id, std::string previous_id, std::size_t own_from) {
    store_ = store;
    tenant_id_ = tenant_id;
    previous_id_ = std::move(previous_id);
    own_from_ = own_from;
  }

  void use_native(bool on) override {
    if (on) {
      native_.emplace(echo_, request_id_);
    } else {
      native_.reset();
    }
  }

  std::optional<std::string> whole(std::string_view chat_completion, std::string_view request_id) override {
    if (native_) return native_->whole(chat_completion);
    auto body = whole_response(chat_completion, echo_, request_id);
    if (body && store_ != nullptr) response_json_ = *body;
    return body;
  }
  bool chunk(std::string_view chunk_json, std::string_view /*request_id*/, std::string& out) override {
    if (native_) return native_->event(chunk_json, out);
    return writer().chunk(chunk_json, out);
  }
  void finish(const std::optional<mgw_usage>& usage, std::string_view /*request_id*/,
              std::string& out) override {
    if (native_) return;  // the vendor's own last event has been passed on
    writer().finish(counted(usage), out);
  }
  void fail(const errors::ApiError& error, std::string_view /*request_id*/, std::string& out) override {
    if (native_) return native_->fail(error, out);
    writer().fail(error, out);
  }

  void sent(std::string_view chat_body, bool pii_flagged) override {
    if (store_ == nullptr) return;
    if (pii_flagged) {
      // Values the policy let through are not kept: the turn is not stored,
      // and the response says so (nothing of it has gone out yet).
      store_ = nullptr;
      echo_["store"] = false;
      return;
    }
    const nlohmann::json doc = nlohmann::json::parse(chat_body, nullptr, false);
    nlohmann::json own = nlohmann::json::array();
    if (doc.is_object() && doc.contains("messages") && doc["messages"].is_array()) {
      const auto& messages = doc["messages"];
      for (std::size_t i = own_from_; i < messages.size(); ++i) own.push_back(messages[i]);
    }
    input_json_ = util::json_text(own, chat_body.size());
  }

  net::Task<void> complete(std::optional<mgw_usage> usage) override {
    if (store_ == nullptr || input_json_.empty()) co_return;
    if (native_) {
      if (native_->final_response().empty()) co_return;  // no whole response came
      response_json_ = native_->final_response();
    } else if (response_json_.empty()) {
      response_json_ = util::json_text(writer().final_response(counted(usage)));
    }
    plugins::StoredResponse record;
    record.tenant_id = tenant_id_;
    record.id = response_id(request_id_);
    record.previous_id = previous_id_;
    record.created_unix_ms = ResponseStore::now_unix_ms();
    record.expires_unix_ms = store_->expires_at(record.created_unix_ms);
    record.input_json = std::move(input_json_);
    record.response_json = std::move(response_json_);
    co_await store_->keep(std::move(record));
  }

 private:
  static std::optional<StreamUsage> counted(const std::optional<mgw_usage>& usage) {
    if (!usage) return std::nullopt;
    return StreamUsage{usage->prompt_tokens, usage->completion_tokens, usage->cached_prompt_tokens, 0};
  }
  ResponseEventWriter& writer() {
    if (!writer_) writer_.emplace(echo_, request_id_);
    return *writer_;
  }

  nlohmann::json echo_;
  std::string request_id_;
  std::optional<ResponseEventWriter> writer_;
  std::optional<NativeAnswer> native_;  // set while the attempt is native
  ResponseStore* store_ = nullptr;
  std::int64_t tenant_id_ = 0;
  std::string previous_id_;
  std::size_t own_from_ = 0;
  std::string input_json_;     // this turn's own chat messages, as sent upstream
  std::string response_json_;  // the whole answer's response object
};

}  // namespace

net::Task<std::variant<chat::DoorRequest, errors::ApiError>> ResponsesDoor::open(nlohmann::json body,
                                                                                 std::string_view text,
                                                                                 std::int64_t tenant_id,
                                                                                 std::string_view request_id,
                                                                                 bool native) const {
  auto translated = translate_request(body, TranslateOptions{store_ != nullptr});
  if (auto* err = std::get_if<errors::ApiError>(&translated)) co_return std::move(*err);
  auto& t = std::get<TranslatedRequest>(translated);
  const std::size_t first_own = t.has_instructions ? 1 : 0;
  std::size_t history_size = 0;
  nlohmann::json history_items;
  if (!t.previous_response_id.empty()) {
    // The conversation so far goes between the instructions (which are this
    // request's alone, as OpenAI's are) and this turn's input.
    auto history = co_await store_->conversation(tenant_id, t.previous_response_id, native);
    if (auto* err = std::get_if<errors::ApiError>(&history)) co_return std::move(*err);
    auto& conversation = std::get<ResponseStore::Conversation>(history);
    if (native) history_items = std::move(conversation.items);
    auto& earlier = conversation.messages;
    history_size = earlier.size();
    auto& messages = t.chat["messages"];
    messages.insert(messages.begin() + static_cast<std::ptrdiff_t>(first_own), earlier.begin(),
                    earlier.end());
  }
  auto shaper = std::make_unique<Shaper>(std::move(t.echo), std::string(request_id));
  if (t.store) shaper->keep_in(store_, tenant_id, t.previous_response_id, first_own + history_size);
  chat::DoorRequest out;
  if (!t.dropped_tools.empty()) {
    std::string names;
    for (const auto& type : t.dropped_tools) names += (names.empty() ? "" : ", ") + type;
    out.headers.emplace_back("X-Dropped-Tools", std::move(names));
  }
  out.shaper = std::move(shaper);
  out.chat = std::move(t.chat);
  if (native) {
    // The client's own body, for a provider that serves this API natively.
    out.native_text = native_request_text(text, body);
    out.native = native_request(std::move(body), std::move(history_items));
  }
  co_return out;
}

std::string ResponsesDoor::param_name(std::string_view chat_param) const {
  // The chat members this door writes, by their Responses names. A message
  // path (messages[3].content) is named by the whole input: instructions,
  // earlier turns and items do not map one to one onto messages.
  if (chat_param == "max_tokens" || chat_param == "max_completion_tokens") return "max_output_tokens";
  if (chat_param.substr(0, 8) == "messages") return "input";
  if (chat_param.substr(0, 15) == "response_format") return "text.format";
  if (chat_param == "reasoning_effort") return "reasoning.effort";
  if (chat_param.substr(0, 5) == "tools") return "tools";
  return std::string(chat_param);
}

}  // namespace modelgw::responses
