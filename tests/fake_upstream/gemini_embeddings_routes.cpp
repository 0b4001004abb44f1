// What the routes answer:
//   embedContent        {"embedding":{"values":[...]}}
//   batchEmbedContents  {"embeddings":[{"values":[...]}, ...]}, at most 100 requests,
//                       each naming the path's model as "models/<model>"
//   countTokens         {"totalTokens":P,"promptTokensDetails":[{"modality":"TEXT","tokenCount":P}]}
//                       for {"contents":[...]} or {"generateContentRequest":{"model":"models/<model>",...}}
// A vector is that of the content's parts' text joined with one space, of
// outputDimensionality numbers (768 by default). Gemini reports no tokens
// for embeddings. The fault directives apply as on generateContent.
#include "gemini_embeddings_routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "embedding_vectors.h"
#include "faults.h"
#include "gemini_errors.h"
#include "gemini_format.h"
#include "http_util.h"
#include "shutdown.h"

namespace fake_upstream::gemini::embeddings {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

const std::string kEmbedJson = "application/json; charset=UTF-8";
constexpr std::string_view kGarbageEmbeddings = R"({"embeddings": [{"values": [0.1, )";
// Gemini's limit of requests in one batchEmbedContents call.
constexpr size_t kMaxBatch = 100;

void sendEmbedError(HTTPServerResponse& response, const ErrorReply& error, const Faults& faults) {
  if (faults.retryAfter >= 0) response.set("Retry-After", std::to_string(faults.retryAfter));
  sendBody(response, error.status, kEmbedJson, error.body);
}

// One EmbedContentRequest: its text and size; false (with `error`) when Gemini would refuse it.
struct EmbedOne {
  std::string text;
  int dimensions = kGeminiDimensions;
};

bool readEmbed(const nlohmann::json& request, std::string_view where, const std::string* model, EmbedOne& out,
               ErrorReply& error) {
  if (!request.is_object()) {
    error =
        invalidArgument("Invalid JSON payload received. Expected an object at '" + std::string(where) + "'.");
    return false;
  }
  if (model != nullptr) {
    const auto m = request.find("model");
    if (m == request.end() || !m->is_string() || *m != "models/" + *model) {
      error = invalidArgument("* BatchEmbedContentsRequest." + std::string(where) +
                              ".model: the model of each request must be the batch's, models/<model>\n");
      return false;
    }
  }
  const auto content = request.find("content");
  const nlohmann::json* parts = nullptr;
  if (content != request.end() && content->is_object()) {
    if (const auto p = content->find("parts"); p != content->end() && p->is_array() && !p->empty()) {
      parts = &*p;
    }
  }
  if (parts == nullptr) {
    error =
        invalidArgument("* " + std::string(where) + ".content.parts: contents.parts must not be empty.\n");
    return false;
  }
  for (const auto& part : *parts) {
    const auto t = part.is_object() ? part.find("text") : part.end();
    if (t == part.end() || !t->is_string()) continue;
    if (!out.text.empty()) out.text += ' ';
    out.text += t->get_ref<const std::string&>();
  }
  if (const auto d = request.find("outputDimensionality"); d != request.end() && !d->is_null()) {
    if (!d->is_number_integer() || d->get<int64_t>() < 1 || d->get<int64_t>() > kGeminiDimensions * 4) {
      error = invalidArgument("* " + std::string(where) + ".output_dimensionality: must be from 1 to 3072\n");
      return false;
    }
    out.dimensions = static_cast<int>(d->get<int64_t>());
  }
  return true;
}

class EmbeddingsHandler : public Poco::Net::HTTPRequestHandler {
 public:
  EmbeddingsHandler(const ServerContext& ctx, std::string model, std::string action)
      : ctx_(ctx), model_(std::move(model)), action_(std::move(action)) {}

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
      return sendEmbedError(response, apiKeyInvalid(), faults);
    }
    if (body.is_discarded() || !body.is_object()) {
      return sendEmbedError(response, invalidArgument("Invalid JSON payload received. Unexpected token."),
                            faults);
    }
    if (!parsed.error.empty()) return sendEmbedError(response, invalidArgument(parsed.error), faults);

    std::string out;
    ErrorReply error;
    const bool ok =
        action_ == "countTokens" ? countTokens(body, faults, out, error) : embed(body, out, error);
    if (!ok) return sendEmbedError(response, error, faults);

    if (faults.html) {
      const int status = faults.status > 0 ? faults.status : 502;
      if (faults.retryAfter >= 0) response.set("Retry-After", std::to_string(faults.retryAfter));
      return sendHtmlPage(response, status);
    }
    if (faults.garbage) return sendBody(response, 200, kEmbedJson, kGarbageEmbeddings);
    if (faults.error200) return sendBody(response, 200, kEmbedJson, internalErrorBody());
    if (faults.quota) return sendEmbedError(response, dailyQuotaExceeded(parsed.model), faults);
    if (faults.context) return sendEmbedError(response, inputTooLong(), faults);
    if (faults.status > 0) {
      const int retryDelay = faults.retryAfter >= 0 ? faults.retryAfter : 1;
      return sendEmbedError(response, errorForStatus(faults.status, parsed.model, action_, retryDelay),
                            faults);
    }
    if (faults.cutAfter < 0) return sendBody(response, 200, kEmbedJson, out);
    sendTruncated(request, response, kEmbedJson, out, faults.cutAfter);
  }

 private:
  bool embed(const nlohmann::json& body, std::string& out, ErrorReply& error) const {
    if (action_ == "embedContent") {
      EmbedOne one;
      if (!readEmbed(body, "EmbedContentRequest", nullptr, one, error)) return false;
      out += R"({"embedding":{"values":)";
      appendVectorFloats(out, one.text, one.dimensions);
      out += "}}";
      return true;
    }
    const auto requests = body.find("requests");
    if (requests == body.end() || !requests->is_array() || requests->empty()) {
      error = invalidArgument("* BatchEmbedContentsRequest.requests: requests must not be empty.\n");
      return false;
    }
    if (requests->size() > kMaxBatch) {
      error =
          invalidArgument("* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n");
      return false;
    }
    out += R"({"embeddings":[)";
    for (size_t i = 0; i < requests->size(); ++i) {
      EmbedOne one;
      if (!readEmbed((*requests)[i], "requests[" + std::to_string(i) + "]", &model_, one, error))
        return false;
      if (i > 0) out += ',';
      out += R"({"values":)";
      appendVectorFloats(out, one.text, one.dimensions);
      out += '}';
    }
    out += "]}";
    return true;
  }

  bool countTokens(const nlohmann::json& body, const Faults& faults, std::string& out,
                   ErrorReply& error) const {
    const nlohmann::json* request = &body;
    if (const auto inner = body.find("generateContentRequest"); inner != body.end()) {
      if (!inner->is_object()) {
        error =
            invalidArgument("Invalid JSON payload received. Expected an object at 'generateContentRequest'.");
        return false;
      }
      const auto m = inner->find("model");
      if (m == inner->end() || !m->is_string() || !m->get_ref<const std::string&>().starts_with("models/")) {
        error = invalidArgument(
            "* CountTokensRequest.generate_content_request.model: unexpected model name format\n");
        return false;
      }
      if (body.contains("contents")) {
        error = invalidArgument("contents and generate_content_request cannot both be set");
        return false;
      }
      request = &*inner;
    }
    const auto contents = request->find("contents");
    if (contents == request->end() || !contents->is_array() || contents->empty()) {
      error = invalidArgument("* GenerateContentRequest.contents: contents is not specified\n");
      return false;
    }
    const Reply reply = buildReply(*request, 0);
    const int tokens = faults.byteTokens ? reply.bytePromptTokens : reply.promptTokens;
    out += R"({"totalTokens":)" + std::to_string(tokens) +
           R"(,"promptTokensDetails":[{"modality":"TEXT","tokenCount":)" + std::to_string(tokens) + "}]}";
    return true;
  }

  const ServerContext& ctx_;
  const std::string model_;
  const std::string action_;
};

}  // namespace
}  // namespace fake_upstream::gemini::embeddings

namespace fake_upstream::gemini {

Poco::Net::HTTPRequestHandler* embeddingsRoute(const ServerContext& ctx, const std::string& model,
                                               const std::string& action) {
  if (action != "embedContent" && action != "batchEmbedContents" && action != "countTokens") return nullptr;
  return new embeddings::EmbeddingsHandler(ctx, model, action);
}

}  // namespace fake_upstream::gemini
