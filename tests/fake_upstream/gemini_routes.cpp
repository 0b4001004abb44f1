#include "gemini_routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <utility>

#include "faults.h"
#include "gemini_embeddings_routes.h"
#include "gemini_errors.h"
#include "gemini_format.h"
#include "http_util.h"
#include "shutdown.h"
#include "sse_writer.h"

namespace fake_upstream::gemini {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

constexpr std::string_view kPrefix = "/v1beta/models/";
constexpr std::string_view kGarbageBody = R"({"candidates": [{"content": {"parts": [{"text": "broken)";
const std::string kJson = "application/json; charset=UTF-8";

// Gemini itself never sends Retry-After (the delay is in RetryInfo); it is
// added only when retry_after=S asks for it.
void sendError(HTTPServerResponse& response, const ErrorReply& error, const Faults& faults) {
  if (faults.retryAfter >= 0) response.set("Retry-After", std::to_string(faults.retryAfter));
  sendBody(response, error.status, kJson, error.body);
}

bool wantsSse(const std::string& uri) {
  std::string_view query = queryOf(uri);
  while (!query.empty()) {
    const auto amp = query.find('&');
    if (query.substr(0, amp) == "alt=sse") return true;
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

// Checks the body as Gemini would; returns true when `error` was filled.
bool validate(const nlohmann::json& body, const ParsedModel& parsed, ErrorReply& error) {
  if (body.is_discarded()) {
    error = invalidArgument("Invalid JSON payload received. Unexpected token.");
    return true;
  }
  if (!body.is_object()) {
    error = invalidArgument("Invalid JSON payload received. Expected an object.");
    return true;
  }
  const auto contents = body.find("contents");
  if (contents != body.end() && !contents->is_array() && !contents->is_null()) {
    error = invalidArgument(
        "Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content)");
    return true;
  }
  if (contents == body.end() || !contents->is_array() || contents->empty()) {
    error = invalidArgument("* GenerateContentRequest.contents: contents is not specified\n");
    return true;
  }
  if (!parsed.error.empty()) {
    error = invalidArgument(parsed.error);
    return true;
  }
  return false;
}

// Where stream responses go: SSE events (alt=sse) or, as Gemini does without
// alt=sse, the elements of one JSON array written as they come.
class ChunkSink {
 public:
  ChunkSink(std::ostream& out, const Faults& faults, bool sse)
      : out_(out), delayMs_(std::max(0, faults.chunkDelayMs)) {
    if (sse) {
      sse_.emplace(out, SseOptions{.split = faults.split,
                                   .delayBetweenEventsMs = delayMs_,
                                   .crlf = true,
                                   .comments = faults.comments});
    }
  }

  bool write(std::string_view payload) {
    if (sse_) return sse_->writeData(payload);
    if (written_ > 0 && delayMs_ > 0 && !sleepUnlessStopped(delayMs_)) return false;
    out_ << (written_++ == 0 ? "[" : ",\r\n") << payload;
    out_.flush();
    return out_.good();
  }

  // Closes the JSON array; nothing to do for SSE, whose body just ends.
  bool finish() {
    if (sse_) return true;
    out_ << (written_ == 0 ? "[]" : "]");
    out_.flush();
    return out_.good();
  }

 private:
  std::ostream& out_;
  const int delayMs_;
  std::optional<SseWriter> sse_;
  int written_ = 0;
};

class GenerateContentHandler : public Poco::Net::HTTPRequestHandler {
 public:
  GenerateContentHandler(const ServerContext& ctx, std::string model, std::string method)
      : ctx_(ctx), model_(std::move(model)), method_(std::move(method)) {}

  void handleRequest(HTTPServerRequest& request, HTTPServerResponse& response) override {
    socketOf(request).setNoDelay(true);
    std::string raw = readBody(request);
    const auto body = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
    ctx_.log.record(request, std::move(raw));

    const ParsedModel parsed = parseModel(model_);
    const Faults& faults = parsed.faults;
    if (faults.delayMs > 0 && !sleepUnlessStopped(faults.delayMs)) return;

    static const std::string kNone;
    if (!ctx_.apiKey.empty() && request.get("x-goog-api-key", kNone) != ctx_.apiKey) {
      return sendError(response, apiKeyInvalid(), faults);
    }
    ErrorReply error;
    if (validate(body, parsed, error)) return sendError(response, error, faults);

    const bool stream = method_ == "streamGenerateContent";
    if (faults.html) {
      const int status = faults.status > 0 ? faults.status : 502;
      if (faults.retryAfter >= 0) response.set("Retry-After", std::to_string(faults.retryAfter));
      return sendHtmlPage(response, status);
    }
    if (faults.garbage) return sendBody(response, 200, kJson, kGarbageBody);
    // Streams report error200 mid-stream, after the first chunk.
    if (faults.error200 && !stream) return sendBody(response, 200, kJson, internalErrorBody());
    if (!faults.error200) {
      if (faults.quota) return sendError(response, dailyQuotaExceeded(parsed.model), faults);
      if (faults.context) return sendError(response, inputTooLong(), faults);
      if (faults.status > 0) {
        const int retryDelay = faults.retryAfter >= 0 ? faults.retryAfter : 1;
        return sendError(response, errorForStatus(faults.status, parsed.model, method_, retryDelay), faults);
      }
    }

    Reply reply = buildReply(body, faults.words);
    if (faults.byteTokens) reply.promptTokens = reply.bytePromptTokens;
    const std::optional<FunctionCall> call = functionCallFor(body);
    const ResponseMeta meta = newResponseMeta(parsed.model, !faults.noUsage);
    const FunctionCall* callPtr = call ? &*call : nullptr;
    if (stream) {
      sendStream(request, response, faults, reply, meta, callPtr, wantsSse(request.getURI()));
    } else {
      sendResponse(request, response, faults, reply, meta, callPtr);
    }
  }

 private:
  static void sendResponse(HTTPServerRequest& request, HTTPServerResponse& response, const Faults& faults,
                           const Reply& reply, const ResponseMeta& meta, const FunctionCall* call) {
    ResponseBuilder builder(meta);
    const std::string_view out =
        call != nullptr ? builder.functionCall(*call, reply) : builder.text(reply.text, &reply);
    if (faults.cutAfter < 0) return sendBody(response, 200, kJson, out);
    sendTruncated(request, response, kJson, out, faults.cutAfter);
  }

  // One response per word (a function call is one response), the last with
  // finishReason and usageMetadata; nothing follows it.
  static void sendStream(HTTPServerRequest& request, HTTPServerResponse& response, const Faults& faults,
                         const Reply& reply, const ResponseMeta& meta, const FunctionCall* call, bool sse) {
    response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_OK);
    response.setChunkedTransferEncoding(true);
    response.setContentType(sse ? "text/event-stream" : kJson);
    response.set("Cache-Control", "no-cache");
    std::ostream& out = response.send();
    ChunkSink sink(out, faults, sse);
    ResponseBuilder builder(meta);

    DeltaSplitter words(reply.text);
    std::string_view current;
    std::string_view next;
    bool haveCurrent = call != nullptr || words.next(current);  // an empty reply still has one chunk
    int sent = 0;
    while (true) {
      const bool final = call != nullptr || !(haveCurrent && words.next(next));
      // cut_after=N: after N chunks, and never as far as the finishReason one.
      if (sent == faults.cutAfter || (final && faults.cutAfter >= 0)) {
        return cutConnection(request, response, out);
      }
      const std::string_view chunk = call != nullptr ? builder.functionCall(*call, reply)
                                                     : builder.text(current, final ? &reply : nullptr);
      if (!sink.write(chunk)) return clientGone(response);
      ++sent;
      if (faults.error200) {
        // The body ends after the error, cleanly at the HTTP level.
        if (!sink.write(internalErrorBody()) || !sink.finish()) clientGone(response);
        return;
      }
      if (final) break;
      current = next;
    }
    if (!sink.finish()) clientGone(response);
  }

  static void clientGone(HTTPServerResponse& response) { response.setKeepAlive(false); }

  const ServerContext& ctx_;
  const std::string model_;
  const std::string method_;
};

}  // namespace

Poco::Net::HTTPRequestHandler* route(std::string_view method, std::string_view path,
                                     const ServerContext& ctx) {
  if (method != "POST" || !path.starts_with(kPrefix)) return nullptr;
  std::string rest = percentDecode(path.substr(kPrefix.size()));
  const auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return nullptr;
  std::string action = rest.substr(colon + 1);
  rest.resize(colon);
  if (action != "generateContent" && action != "streamGenerateContent") {
    return embeddingsRoute(ctx, rest, action);
  }
  return new GenerateContentHandler(ctx, std::move(rest), std::move(action));
}

}  // namespace fake_upstream::gemini
