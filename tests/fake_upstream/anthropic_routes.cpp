#include "anthropic_routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "anthropic_cache.h"
#include "anthropic_errors.h"
#include "anthropic_format.h"
#include "faults.h"
#include "http_util.h"
#include "random_id.h"
#include "shutdown.h"
#include "sse_writer.h"

namespace fake_upstream::anthropic {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

constexpr std::string_view kGarbageBody = R"({"id": "msg_broken", "type": "message", "content": [)";

// Retry-After goes on every 429 (1 s unless retry_after=S says otherwise) and
// on any other error when retry_after=S was given explicitly.
void setRetryAfter(HTTPServerResponse& response, int status, const Faults& faults) {
  if (status == 429 || faults.retryAfter >= 0) {
    response.set("retry-after", std::to_string(faults.retryAfter >= 0 ? faults.retryAfter : 1));
  }
}

void sendError(HTTPServerResponse& response, const ErrorReply& error, const Faults& faults) {
  setRetryAfter(response, error.status, faults);
  sendJson(response, error.status, error.body);
}

struct Request {
  std::string_view model;
  bool stream = false;
};

// Checks the body as Anthropic would (its messages name the field first, as
// its validator does); returns true when `error` was filled.
bool validate(const nlohmann::json& body, const ParsedModel* parsed, Request& req, ErrorReply& error) {
  if (body.is_discarded()) {
    error = invalidRequest("The request body is not valid JSON.");
    return true;
  }
  if (!body.is_object()) {
    error = invalidRequest("Input should be a valid dictionary");
    return true;
  }
  auto fail = [&](std::string_view message) {
    error = invalidRequest(message);
    return true;
  };
  if (!body.contains("model")) return fail("model: Field required");
  if (parsed == nullptr) return fail("model: Input should be a valid string");
  const auto messages = body.find("messages");
  if (messages == body.end()) return fail("messages: Field required");
  if (!messages->is_array()) return fail("messages: Input should be a valid list");
  const auto maxTokens = body.find("max_tokens");
  if (maxTokens == body.end()) return fail("max_tokens: Field required");
  if (!maxTokens->is_number_integer()) return fail("max_tokens: Input should be a valid integer");
  const auto stream = body.find("stream");
  if (stream != body.end() && !stream->is_boolean()) return fail("stream: Input should be a valid boolean");
  if (messages->empty()) return fail("messages: at least one message is required");
  if (thinkingEnabled(body)) {
    const auto budget = body["thinking"].find("budget_tokens");
    if (budget == body["thinking"].end() || !budget->is_number_integer())
      return fail("thinking.enabled.budget_tokens: Field required");
    if (budget->get<int64_t>() < 1024)
      return fail("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
    if (maxTokens->get<int64_t>() <= budget->get<int64_t>())
      return fail("`max_tokens` must be greater than `thinking.budget_tokens`");
  }
  if (!parsed->error.empty()) return fail(parsed->error);
  req.model = parsed->model;
  req.stream = stream != body.end() && stream->get<bool>();
  return false;
}

// The members POST /v1/messages/count_tokens takes; any other is refused as
// the real endpoint does ("<name>: Extra inputs are not permitted").
bool isCountedMember(std::string_view name) {
  for (std::string_view m :
       {"model", "messages", "system", "tools", "tool_choice", "thinking", "mcp_servers"}) {
    if (m == name) return true;
  }
  return false;
}

// validate() for count_tokens: no max_tokens (it is an extra input there).
bool validateCount(const nlohmann::json& body, const ParsedModel* parsed, ErrorReply& error) {
  if (body.is_discarded()) {
    error = invalidRequest("The request body is not valid JSON.");
    return true;
  }
  if (!body.is_object()) {
    error = invalidRequest("Input should be a valid dictionary");
    return true;
  }
  auto fail = [&](std::string_view message) {
    error = invalidRequest(message);
    return true;
  };
  for (const auto& [name, value] : body.items()) {
    if (!isCountedMember(name)) return fail(name.substr(0, 64) + ": Extra inputs are not permitted");
  }
  if (!body.contains("model")) return fail("model: Field required");
  if (parsed == nullptr) return fail("model: Input should be a valid string");
  const auto messages = body.find("messages");
  if (messages == body.end()) return fail("messages: Field required");
  if (!messages->is_array()) return fail("messages: Input should be a valid list");
  if (messages->empty()) return fail("messages: at least one message is required");
  if (!parsed->error.empty()) return fail(parsed->error);
  return false;
}

// The model directives of a body, when its model is a string.
std::optional<ParsedModel> modelOf(const nlohmann::json& body) {
  if (!body.is_object()) return std::nullopt;
  const auto model = body.find("model");
  if (model == body.end() || !model->is_string()) return std::nullopt;
  return parseModel(model->get_ref<const std::string&>());
}

class MessagesHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit MessagesHandler(const ServerContext& ctx) : ctx_(ctx) {}

  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    socketOf(request).setNoDelay(true);
    std::string raw = readBody(request);
    const auto body = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
    ctx_.log.record(request, std::move(raw));

    ParsedModel parsed;
    const ParsedModel* parsedPtr = nullptr;
    if (body.is_object()) {
      const auto model = body.find("model");
      if (model != body.end() && model->is_string()) {
        parsed = parseModel(model->get_ref<const std::string&>());
        parsedPtr = &parsed;
      }
    }
    const Faults& faults = parsed.faults;
    if (faults.delayMs > 0 && !sleepUnlessStopped(faults.delayMs)) return;

    // Every Anthropic answer carries one.
    std::string requestId = "req_";
    appendRandomAlnum(requestId, 24);
    response.set("request-id", requestId);

    static const std::string kNone;
    if (!ctx_.apiKey.empty() && request.get("x-api-key", kNone) != ctx_.apiKey) {
      return sendError(response, invalidApiKey(), faults);
    }
    if (!request.has("anthropic-version")) return sendError(response, missingVersion(), faults);
    Request req;
    ErrorReply error;
    if (validate(body, parsedPtr, req, error)) return sendError(response, error, faults);

    if (faults.html) {
      const int status = faults.status > 0 ? faults.status : 502;
      setRetryAfter(response, status, faults);
      return sendHtmlPage(response, status);
    }
    if (faults.garbage) return sendJson(response, 200, kGarbageBody);
    // Streams report error200 mid-stream, after the first delta.
    if (faults.error200 && !req.stream) return sendJson(response, 200, overloadedBody());
    if (!faults.error200) {
      if (faults.quota) return sendError(response, creditBalanceTooLow(), faults);
      if (faults.context) return sendError(response, promptTooLong(), faults);
      if (faults.status > 0) return sendError(response, errorForStatus(faults.status, req.model), faults);
    }

    Reply reply = buildReply(body, faults.words);
    if (faults.byteTokens) reply.promptTokens = reply.bytePromptTokens;
    const std::optional<ToolCall> tool = toolCallFor(body);
    MessageMeta meta = newMessageMeta(req.model, !faults.noUsage);
    meta.thinking = thinkingEnabled(body);
    if (meta.thinking) reply.completionTokens += kThinkingWords;
    meta.cache = cacheUsageFor(body, req.model);
    if (req.stream) {
      sendStream(request, response, faults, reply, meta, tool ? &*tool : nullptr);
    } else {
      sendMessage(request, response, faults, reply, meta, tool ? &*tool : nullptr);
    }
  }

 private:
  static void sendMessage(HTTPServerRequest& request, HTTPServerResponse& response, const Faults& faults,
                          const Reply& reply, const MessageMeta& meta, const ToolCall* tool) {
    thread_local std::string out;
    out.clear();
    appendMessage(out, meta, reply, tool);
    if (faults.cutAfter < 0) return sendJson(response, 200, out);
    static const std::string kJson = "application/json";
    sendTruncated(request, response, kJson, out, faults.cutAfter);
  }

  // message_start, content_block_start, ping, one content_block_delta per
  // piece, content_block_stop, message_delta, message_stop.
  static void sendStream(HTTPServerRequest& request, HTTPServerResponse& response, const Faults& faults,
                         const Reply& reply, const MessageMeta& meta, const ToolCall* tool) {
    response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_OK);
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream; charset=utf-8");
    response.set("Cache-Control", "no-cache");
    std::ostream& out = response.send();

    SseWriter sse(out, {.split = faults.split,
                        .delayBetweenEventsMs = std::max(0, faults.chunkDelayMs),
                        .comments = faults.comments});
    EventBuilder events(meta);
    if (!sse.writeEvent("message_start", events.messageStart(reply))) return clientGone(response);
    // A thinking block first, as Anthropic streams it: the thinking, then its signature.
    if (meta.thinking && (!sse.writeEvent("content_block_start", events.thinkingBlockStart()) ||
                          !sse.writeEvent("content_block_delta", events.thinkingDelta()) ||
                          !sse.writeEvent("content_block_delta", events.signatureDelta()) ||
                          !sse.writeEvent("content_block_stop", events.contentBlockStop(0)))) {
      return clientGone(response);
    }
    if (!sse.writeEvent("content_block_start", events.contentBlockStart(tool)) ||
        !sse.writeEvent("ping", EventBuilder::ping())) {
      return clientGone(response);
    }

    // Tool input streams as input_json_delta pieces, starting with an empty
    // one as Anthropic's does; text as one text_delta per word.
    DeltaSplitter pieces(tool != nullptr ? std::string_view(tool->inputJson) : std::string_view(reply.text));
    bool emptyFirst = tool != nullptr;
    std::string_view piece;
    int sent = 0;
    while (emptyFirst || pieces.next(piece)) {
      if (emptyFirst) {
        piece = {};
        emptyFirst = false;
      }
      if (sent == faults.cutAfter) return cutConnection(request, response, out);
      const auto data = tool != nullptr ? events.inputJsonDelta(piece) : events.textDelta(piece);
      if (!sse.writeEvent("content_block_delta", data)) return clientGone(response);
      ++sent;
      if (faults.error200) break;
      if (faults.comments && !sse.writeEvent("ping", EventBuilder::ping())) return clientGone(response);
    }
    if (faults.error200) {
      // The stream ends after the error event, cleanly at the HTTP level.
      if (!sse.writeEvent("error", overloadedBody())) clientGone(response);
      return;
    }
    // cut_after at or past the last delta: cut before content_block_stop.
    if (faults.cutAfter >= 0) return cutConnection(request, response, out);

    if (!sse.writeEvent("content_block_stop", events.contentBlockStop(events.answerIndex())) ||
        !sse.writeEvent("message_delta",
                        events.messageDelta(tool != nullptr ? "tool_use" : "end_turn", reply)) ||
        !sse.writeEvent("message_stop", EventBuilder::messageStop())) {
      return clientGone(response);
    }
  }

  static void clientGone(HTTPServerResponse& response) { response.setKeepAlive(false); }

  const ServerContext& ctx_;
};

// POST /v1/messages/count_tokens: {"input_tokens": P}, the prompt count
// /v1/messages reports for the same body (input + cache creation + cache
// read). Auth, version header, delay_ms, status=N and html as /v1/messages.
class CountTokensHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit CountTokensHandler(const ServerContext& ctx) : ctx_(ctx) {}

  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    std::string raw = readBody(request);
    const auto body = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
    ctx_.log.record(request, std::move(raw));
    const std::optional<ParsedModel> parsed = modelOf(body);
    const Faults noFaults;
    const Faults& faults = parsed ? parsed->faults : noFaults;
    if (faults.delayMs > 0 && !sleepUnlessStopped(faults.delayMs)) return;

    std::string requestId = "req_";
    appendRandomAlnum(requestId, 24);
    response.set("request-id", requestId);

    static const std::string kNone;
    if (!ctx_.apiKey.empty() && request.get("x-api-key", kNone) != ctx_.apiKey) {
      return sendError(response, invalidApiKey(), faults);
    }
    if (!request.has("anthropic-version")) return sendError(response, missingVersion(), faults);
    ErrorReply error;
    if (validateCount(body, parsed ? &*parsed : nullptr, error)) return sendError(response, error, faults);
    if (faults.html) {
      const int status = faults.status > 0 ? faults.status : 502;
      setRetryAfter(response, status, faults);
      return sendHtmlPage(response, status);
    }
    if (faults.status > 0) return sendError(response, errorForStatus(faults.status, parsed->model), faults);
    Reply reply = buildReply(body, -1);
    if (faults.byteTokens) reply.promptTokens = reply.bytePromptTokens;
    sendJson(response, 200, "{\"input_tokens\":" + std::to_string(reply.promptTokens) + "}");
  }

 private:
  const ServerContext& ctx_;
};

}  // namespace

Poco::Net::HTTPRequestHandler* route(std::string_view method, std::string_view path,
                                     const ServerContext& ctx) {
  if (path == "/v1/messages" && method == "POST") return new MessagesHandler(ctx);
  if (path == "/v1/messages/count_tokens" && method == "POST") return new CountTokensHandler(ctx);
  return nullptr;
}

}  // namespace fake_upstream::anthropic
