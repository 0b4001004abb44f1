#include "openai_routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "edge_faults.h"
#include "faults.h"
#include "http_util.h"
#include "openai_errors.h"
#include "openai_format.h"
#include "shutdown.h"
#include "sse_writer.h"

namespace fake_upstream::openai {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

constexpr std::string_view kParseError =
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP "
    "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you "
    "have trouble figuring out how to fix this, please contact us through our help center at "
    "help.openai.com.)";

constexpr std::string_view kGarbageBody = R"({"id": "chatcmpl-broken", "choices": [)";

// Retry-After goes on every 429 (1 s unless retry_after=S says otherwise) and
// on any other error response when retry_after=S was given explicitly.
void setRetryAfter(HTTPServerResponse& response, int status, const Faults& faults) {
  if (status == 429 || faults.retryAfter >= 0) {
    response.set("Retry-After", std::to_string(faults.retryAfter >= 0 ? faults.retryAfter : 1));
  }
}

void sendError(HTTPServerResponse& response, const ErrorReply& error, const Faults& faults) {
  setRetryAfter(response, error.status, faults);
  sendJson(response, error.status, error.body);
}

void sendHtml(HTTPServerResponse& response, int status, const Faults& faults) {
  setRetryAfter(response, status, faults);
  sendHtmlPage(response, status);
}

struct Request {
  const nlohmann::json* messages = nullptr;
  std::string_view model;
  bool stream = false;
  bool includeUsage = false;
  int choices = 1;  // n; a plain completion answers that many
};

// Checks the body as OpenAI would; returns true when `error` was filled.
bool validate(const nlohmann::json& body, const ParsedModel* parsed, Request& req, ErrorReply& error) {
  if (!body.is_object()) {
    error = invalidRequest(kParseError, nullptr);
    return true;
  }
  const auto model = body.find("model");
  if (model == body.end()) {
    error = invalidRequest("you must provide a model parameter", nullptr);
    return true;
  }
  if (parsed == nullptr) {
    error = invalidRequest("Invalid type for 'model': expected a string.", "model");
    return true;
  }
  const auto messages = body.find("messages");
  if (messages == body.end()) {
    error = invalidRequest("Missing required parameter: 'messages'.", "messages");
    return true;
  }
  if (!messages->is_array()) {
    error = invalidRequest("Invalid type for 'messages': expected an array.", "messages");
    return true;
  }
  const auto stream = body.find("stream");
  if (stream != body.end() && !stream->is_boolean() && !stream->is_null()) {
    error = invalidRequest("Invalid type for 'stream': expected a boolean.", "stream");
    return true;
  }
  if (!parsed->error.empty()) {
    error = invalidRequest(parsed->error, "model");
    return true;
  }
  req.messages = &*messages;
  req.model = parsed->model;
  req.stream = stream != body.end() && stream->is_boolean() && stream->get<bool>();
  const auto options = body.find("stream_options");
  if (options != body.end() && options->is_object()) {
    const auto include = options->find("include_usage");
    req.includeUsage = include != options->end() && include->is_boolean() && include->get<bool>();
  }
  // OpenAI accepts 1 to 128 choices.
  if (const auto n = body.find("n"); n != body.end() && !n->is_null()) {
    if (!n->is_number_integer() || n->get<std::int64_t>() < 1 || n->get<std::int64_t>() > 128) {
      error = invalidRequest("Invalid 'n': integer below minimum value (1) or above maximum (128).", "n");
      return true;
    }
    req.choices = static_cast<int>(n->get<std::int64_t>());
  }
  return false;
}

class ChatCompletionsHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ChatCompletionsHandler(const ServerContext& ctx) : ctx_(ctx) {}

  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    // Every SSE event and small response must leave at once, not wait for
    // Nagle to coalesce it with the next write.
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

    static const std::string kNoAuth;
    if (!ctx_.expectedAuthorization.empty() &&
        request.get("Authorization", kNoAuth) != ctx_.expectedAuthorization) {
      return sendError(response, invalidApiKey(), faults);
    }
    Request req;
    ErrorReply error;
    if (validate(body, parsedPtr, req, error)) return sendError(response, error, faults);

    // Below HTTP's usual shape: before every other answer.
    if (faults.interimForever) return sendInterimForever(request, response);

    if (faults.html) return sendHtml(response, faults.status > 0 ? faults.status : 502, faults);
    if (faults.garbage) return sendJson(response, 200, kGarbageBody);
    if (faults.error200) return sendJson(response, 200, serverErrorBody());
    if (faults.quota) return sendError(response, insufficientQuota(), faults);
    if (faults.context) return sendError(response, contextLengthExceeded(), faults);
    if (faults.status > 0) {
      const int retryAfter = faults.retryAfter >= 0 ? faults.retryAfter : 1;
      return sendError(response, errorForStatus(faults.status, req.model, retryAfter), faults);
    }

    const ChatReply reply = buildReply(*req.messages, faults.words);
    const ResponseMeta meta = newResponseMeta(req.model);
    if (req.stream) {
      sendStream(request, response, req, faults, reply, meta);
    } else {
      sendCompletion(request, response, faults, reply, meta, req.choices);
    }
  }

 private:
  void sendCompletion(HTTPServerRequest& request, HTTPServerResponse& response, const Faults& faults,
                      const ChatReply& reply, const ResponseMeta& meta, int choices) {
    // Reused by every non-streaming response this thread serves.
    thread_local std::string out;
    out.clear();
    appendCompletion(out, meta, reply, choices);
    if (faults.bothLengths) return sendBothLengths(request, response, out);
    if (faults.cutAfter < 0) return sendJson(response, 200, out);

    // cut_after=N on a plain completion: promise the whole body, send N bytes.
    static const std::string kJson = "application/json";
    sendTruncated(request, response, kJson, out, faults.cutAfter);
  }

  void sendStream(HTTPServerRequest& request, HTTPServerResponse& response, const Request& req,
                  const Faults& faults, const ChatReply& reply, const ResponseMeta& meta) {
    const bool usage = req.includeUsage && !faults.noUsage;
    response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_OK);
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream");
    response.set("Cache-Control", "no-cache");
    std::ostream& out = response.send();

    SseWriter sse(out, {.split = faults.split,
                        .delayBetweenEventsMs = std::max(0, faults.chunkDelayMs),
                        .comments = faults.comments});
    ChunkBuilder chunks(meta, usage);
    if (!sse.writeData(chunks.roleChunk())) return clientGone(response);
    // Past any response bound: deltas of floodText() until N bytes went out.
    for (int flooded = 0; flooded < faults.floodBytes; flooded += static_cast<int>(floodText().size())) {
      if (!sse.writeData(chunks.contentChunk(floodText()))) return clientGone(response);
    }
    if (faults.longLine >= 0 && !writeLongLine(out, faults.longLine)) return clientGone(response);

    // Words are separated by exactly one space (buildReply normalises), so
    // each delta is a slice of the reply that keeps its trailing space.
    const std::string_view text = reply.text;
    size_t pos = 0;
    int sent = 0;
    while (pos < text.size()) {
      if (sent == faults.cutAfter) return cutConnection(request, response, out);
      const size_t space = text.find(' ', pos);
      const size_t end = space == std::string_view::npos ? text.size() : space + 1;
      if (!sse.writeData(chunks.contentChunk(text.substr(pos, end - pos)))) return clientGone(response);
      ++sent;
      pos = end;
    }
    // cut_after at or past the last word: cut before the finish chunk.
    if (faults.cutAfter >= 0) return cutConnection(request, response, out);

    if (!sse.writeData(chunks.finishChunk())) return clientGone(response);
    if (usage && !sse.writeData(chunks.usageChunk(reply))) return clientGone(response);
    if (!sse.writeData("[DONE]")) return clientGone(response);
  }

  static void clientGone(HTTPServerResponse& response) { response.setKeepAlive(false); }

  const ServerContext& ctx_;
};

}  // namespace

Poco::Net::HTTPRequestHandler* route(std::string_view method, std::string_view path,
                                     const ServerContext& ctx) {
  if (path == "/v1/chat/completions" && method == "POST") return new ChatCompletionsHandler(ctx);
  return nullptr;
}

}  // namespace fake_upstream::openai
