#include "openai_responses_routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "edge_faults.h"
#include "faults.h"
#include "http_util.h"
#include "openai_errors.h"
#include "openai_responses_format.h"
#include "shutdown.h"
#include "sse_writer.h"

namespace fake_upstream::openai::responses {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

constexpr std::string_view kParseError =
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP "
    "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you "
    "have trouble figuring out how to fix this, please contact us through our help center at "
    "help.openai.com.)";

constexpr std::string_view kGarbageBody = R"({"id": "resp_broken", "object": "response", "output": [)";

void setRetryAfter(HTTPServerResponse& response, int status, const Faults& faults) {
  if (status == 429 || faults.retryAfter >= 0) {
    response.set("Retry-After", std::to_string(faults.retryAfter >= 0 ? faults.retryAfter : 1));
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

// Checks the body as OpenAI would, and what a gateway that keeps the
// conversation must never send; returns true when `error` was filled.
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
  const auto input = body.find("input");
  if (input == body.end()) {
    error = invalidRequest("Missing required parameter: 'input'.", "input");
    return true;
  }
  if (!input->is_string() && !input->is_array()) {
    error =
        invalidRequest("Invalid type for 'input': expected a string or an array of input items.", "input");
    return true;
  }
  const auto stream = body.find("stream");
  if (stream != body.end() && !stream->is_boolean() && !stream->is_null()) {
    error = invalidRequest("Invalid type for 'stream': expected a boolean.", "stream");
    return true;
  }
  if (const auto previous = body.find("previous_response_id");
      previous != body.end() && !previous->is_null()) {
    error = invalidRequest(
        "fake_upstream: previous_response_id must not be sent upstream (the gateway sends the whole "
        "conversation in input).",
        "previous_response_id");
    return true;
  }
  if (const auto store = body.find("store"); store == body.end() || *store != false) {
    error =
        invalidRequest("fake_upstream: store must be false (the gateway keeps responses itself).", "store");
    return true;
  }
  if (!parsed->error.empty()) {
    error = invalidRequest(parsed->error, "model");
    return true;
  }
  req.model = parsed->model;
  req.stream = stream != body.end() && stream->is_boolean() && stream->get<bool>();
  return false;
}

class ResponsesHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ResponsesHandler(const ServerContext& ctx) : ctx_(ctx) {}

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

    static const std::string kNoAuth;
    if (!ctx_.expectedAuthorization.empty() &&
        request.get("Authorization", kNoAuth) != ctx_.expectedAuthorization) {
      return sendError(response, invalidApiKey(), faults);
    }
    Request req;
    ErrorReply error;
    if (validate(body, parsedPtr, req, error)) return sendError(response, error, faults);

    if (faults.interimForever) return sendInterimForever(request, response);
    if (faults.html) {
      setRetryAfter(response, faults.status > 0 ? faults.status : 502, faults);
      return sendHtmlPage(response, faults.status > 0 ? faults.status : 502);
    }
    if (faults.garbage) return sendJson(response, 200, kGarbageBody);
    if (faults.quota) return sendError(response, insufficientQuota(), faults);
    if (faults.context) return sendError(response, contextLengthExceeded(), faults);
    if (faults.status > 0) {
      const int retryAfter = faults.retryAfter >= 0 ? faults.retryAfter : 1;
      return sendError(response, errorForStatus(faults.status, req.model, retryAfter), faults);
    }

    const Reply reply = responses::buildReply(body, faults.words);
    const std::optional<FunctionCall> call = responses::functionCallFor(body);
    const ResponseMeta meta = responses::newResponseMeta(req.model, body, !faults.noUsage);
    if (req.stream) {
      sendStream(request, response, faults, reply, meta, call ? &*call : nullptr);
    } else {
      sendResponse(request, response, faults, reply, meta, call ? &*call : nullptr);
    }
  }

 private:
  static void sendResponse(HTTPServerRequest& request, HTTPServerResponse& response, const Faults& faults,
                           const Reply& reply, const ResponseMeta& meta, const FunctionCall* call) {
    Json object = responses::completedResponse(meta, reply, call);
    if (faults.error200) {
      // A 200 whose response failed, as OpenAI reports a failure in the model.
      object["status"] = "failed";
      object["error"] = responses::serverError();
      object["output"] = Json::array();
      object["usage"] = nullptr;
    }
    const std::string out = object.dump();
    if (faults.bothLengths) return sendBothLengths(request, response, out);
    if (faults.cutAfter < 0) return sendJson(response, 200, out);
    static const std::string kJson = "application/json";
    sendTruncated(request, response, kJson, out, faults.cutAfter);
  }

  // response.created, response.in_progress, [the reasoning item], the message
  // (or the function call) item with its deltas, response.completed.
  static void sendStream(HTTPServerRequest& request, HTTPServerResponse& response, const Faults& faults,
                         const Reply& reply, const ResponseMeta& meta, const FunctionCall* call) {
    response.setStatusAndReason(Poco::Net::HTTPResponse::HTTP_OK);
    response.setChunkedTransferEncoding(true);
    response.setContentType("text/event-stream; charset=utf-8");
    response.set("Cache-Control", "no-cache");
    std::ostream& out = response.send();

    SseWriter sse(out, {.split = faults.split,
                        .delayBetweenEventsMs = std::max(0, faults.chunkDelayMs),
                        .comments = faults.comments});
    EventBuilder events;
    const auto write = [&](std::string_view type, Json fields) {
      return sse.writeEvent(type, events.make(type, std::move(fields)));
    };
    const Json inProgress = responses::responseObject(meta, "in_progress", Json::array(), nullptr);
    if (!write("response.created", {{"response", inProgress}}) ||
        !write("response.in_progress", {{"response", inProgress}})) {
      return clientGone(response);
    }
    if (faults.error200) {
      // The model failed after the response began: response.failed, then the
      // body ends cleanly.
      Json failed = responses::responseObject(meta, "failed", Json::array(), nullptr);
      failed["error"] = responses::serverError();
      if (!write("response.failed", {{"response", std::move(failed)}})) clientGone(response);
      return;
    }

    Json output = Json::array();
    int index = 0;
    if (meta.reasoning) {
      Json item = responses::reasoningItem(meta);
      Json added = item;
      added.erase("encrypted_content");
      if (!write("response.output_item.added", {{"output_index", index}, {"item", std::move(added)}}) ||
          !write("response.output_item.done", {{"output_index", index}, {"item", item}})) {
        return clientGone(response);
      }
      output.push_back(std::move(item));
      ++index;
    }

    // One delta per word of the text (or piece of the arguments, cut after
    // each space); cut_after=N cuts the connection after N of them.
    const std::string_view text = call != nullptr ? std::string_view(call->arguments) : reply.text;
    const std::string itemId = call != nullptr ? meta.callItemId : meta.messageId;
    if (call != nullptr) {
      if (!write("response.output_item.added",
                 {{"output_index", index},
                  {"item", responses::functionCallItem(meta, *call, "", "in_progress")}})) {
        return clientGone(response);
      }
    } else {
      const Json emptyPart = {
          {"type", "output_text"}, {"annotations", Json::array()}, {"logprobs", Json::array()}, {"text", ""}};
      if (!write("response.output_item.added",
                 {{"output_index", index}, {"item", responses::messageItem(meta, "", "in_progress")}}) ||
          !write("response.content_part.added",
                 {{"item_id", itemId}, {"output_index", index}, {"content_index", 0}, {"part", emptyPart}})) {
        return clientGone(response);
      }
    }
    DeltaSplitter pieces(text);
    std::string_view piece;
    int sent = 0;
    while (pieces.next(piece)) {
      if (sent == faults.cutAfter) return cutConnection(request, response, out);
      const bool ok = call != nullptr
                          ? write("response.function_call_arguments.delta",
                                  {{"item_id", itemId}, {"output_index", index}, {"delta", piece}})
                          : write("response.output_text.delta", {{"item_id", itemId},
                                                                 {"output_index", index},
                                                                 {"content_index", 0},
                                                                 {"delta", piece},
                                                                 {"logprobs", Json::array()}});
      if (!ok) return clientGone(response);
      ++sent;
    }
    // cut_after at or past the last delta: cut before the .done events.
    if (faults.cutAfter >= 0) return cutConnection(request, response, out);

    Json item;
    if (call != nullptr) {
      item = responses::functionCallItem(meta, *call, call->arguments, "completed");
      if (!write("response.function_call_arguments.done", {{"item_id", itemId},
                                                           {"output_index", index},
                                                           {"name", call->name},
                                                           {"arguments", call->arguments}})) {
        return clientGone(response);
      }
    } else {
      item = responses::messageItem(meta, reply.text, "completed");
      const Json part = item["content"][0];
      if (!write("response.output_text.done", {{"item_id", itemId},
                                               {"output_index", index},
                                               {"content_index", 0},
                                               {"text", reply.text},
                                               {"logprobs", Json::array()}}) ||
          !write("response.content_part.done",
                 {{"item_id", itemId}, {"output_index", index}, {"content_index", 0}, {"part", part}})) {
        return clientGone(response);
      }
    }
    if (!write("response.output_item.done", {{"output_index", index}, {"item", item}})) {
      return clientGone(response);
    }
    output.push_back(std::move(item));
    if (!write("response.completed",
               {{"response", responses::responseObject(meta, "completed", std::move(output), &reply)}})) {
      clientGone(response);
    }
  }

  static void clientGone(HTTPServerResponse& response) { response.setKeepAlive(false); }

  const ServerContext& ctx_;
};

}  // namespace
}  // namespace fake_upstream::openai::responses

namespace fake_upstream::openai {

Poco::Net::HTTPRequestHandler* responsesRoute(std::string_view method, std::string_view path,
                                              const ServerContext& ctx) {
  if (path == "/v1/responses" && method == "POST") return new responses::ResponsesHandler(ctx);
  return nullptr;
}

}  // namespace fake_upstream::openai
