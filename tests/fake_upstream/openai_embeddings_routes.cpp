// The body OpenAI answers:
//   {"object":"list","data":[{"object":"embedding","index":i,"embedding":[...] or "<base64>"}, ...],
//    "model":<model>,"usage":{"prompt_tokens":P,"total_tokens":P}}
// P sums each input's count: a string counts as a chat message of that text
// does (4 + ceil(bytes / 4); 4 + bytes with byte_tokens), a token array its
// length. The vector of a token array is that of its JSON text.
#include "openai_embeddings_routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "edge_faults.h"
#include "embedding_vectors.h"
#include "faults.h"
#include "http_util.h"
#include "json_text.h"
#include "openai_errors.h"
#include "shutdown.h"

namespace fake_upstream::openai::embeddings {
namespace {

using Poco::Net::HTTPServerRequest;
using Poco::Net::HTTPServerResponse;

constexpr std::string_view kParseError =
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP "
    "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you "
    "have trouble figuring out how to fix this, please contact us through our help center at "
    "help.openai.com.)";
constexpr std::string_view kInvalidInput =
    "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.";
constexpr std::string_view kGarbageBody = R"({"object": "list", "data": [{"object": "embedding", "index": 0)";
// OpenAI's limit of inputs in one request.
constexpr size_t kMaxInputs = 2048;

void setRetryAfter(HTTPServerResponse& response, int status, const Faults& faults) {
  if (status == 429 || faults.retryAfter >= 0) {
    response.set("Retry-After", std::to_string(faults.retryAfter >= 0 ? faults.retryAfter : 1));
  }
}

void sendError(HTTPServerResponse& response, const ErrorReply& error, const Faults& faults) {
  setRetryAfter(response, error.status, faults);
  sendJson(response, error.status, error.body);
}

struct Input {
  std::string text;  // the string, or a token array's JSON text
  int tokens = 0;
  int byteTokens = 0;
};

struct Request {
  std::string_view model;
  std::vector<Input> inputs;
  int dimensions = kOpenAiDimensions;
  bool base64 = false;
};

// One input: a non-empty string, or a non-empty array of token ids.
bool readInput(const nlohmann::json& item, std::vector<Input>& out) {
  if (item.is_string()) {
    const auto& text = item.get_ref<const std::string&>();
    if (text.empty()) return false;
    out.push_back({text, 4 + static_cast<int>((text.size() + 3) / 4), 4 + static_cast<int>(text.size())});
    return true;
  }
  if (!item.is_array() || item.empty()) return false;
  for (const auto& id : item) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0) return false;
  }
  out.push_back({item.dump(), static_cast<int>(item.size()), static_cast<int>(item.size())});
  return true;
}

// Checks the body as OpenAI would; returns true when `error` was filled.
bool validate(const nlohmann::json& body, const ParsedModel* parsed, Request& req, ErrorReply& error) {
  if (!body.is_object()) {
    error = invalidRequest(kParseError, nullptr);
    return true;
  }
  if (body.find("model") == body.end()) {
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
  // A string, or an array of strings, of token ids, or of token arrays.
  bool valid = true;
  if (input->is_string() || (input->is_array() && !input->empty() && (*input)[0].is_number_integer())) {
    valid = readInput(*input, req.inputs);
  } else if (input->is_array() && !input->empty()) {
    if (input->size() > kMaxInputs) {
      error = invalidRequest(
          "Too many inputs. The max number of inputs is 2048. We recommend sending fewer inputs per batch.",
          "input");
      return true;
    }
    for (const auto& item : *input) valid = valid && readInput(item, req.inputs);
  } else {
    valid = false;
  }
  if (!valid) {
    error = invalidRequest(kInvalidInput, "input");
    return true;
  }
  if (const auto format = body.find("encoding_format"); format != body.end() && !format->is_null()) {
    if (*format != "float" && *format != "base64") {
      error = invalidRequest("Invalid value for 'encoding_format': expected 'float' or 'base64'.",
                             "encoding_format");
      return true;
    }
    req.base64 = *format == "base64";
  }
  if (const auto dims = body.find("dimensions"); dims != body.end() && !dims->is_null()) {
    if (!dims->is_number_integer() || dims->get<int64_t>() < 1 ||
        dims->get<int64_t>() > kOpenAiDimensions * 2) {
      error =
          invalidRequest("Invalid value for 'dimensions': expected an integer from 1 to 3072.", "dimensions");
      return true;
    }
    req.dimensions = static_cast<int>(dims->get<int64_t>());
  }
  if (!parsed->error.empty()) {
    error = invalidRequest(parsed->error, "model");
    return true;
  }
  req.model = parsed->model;
  return false;
}

std::string listBody(const Request& req, const Faults& faults) {
  std::string out;
  out.reserve(64 + req.inputs.size() * (static_cast<size_t>(req.dimensions) * (req.base64 ? 6 : 12) + 64));
  out += R"({"object":"list","data":[)";
  int tokens = 0;
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    const Input& in = req.inputs[i];
    tokens += faults.byteTokens ? in.byteTokens : in.tokens;
    if (i > 0) out += ',';
    out += R"({"object":"embedding","index":)";
    out += std::to_string(i);
    out += R"(,"embedding":)";
    if (req.base64) {
      appendVectorBase64(out, in.text, req.dimensions);
    } else {
      appendVectorFloats(out, in.text, req.dimensions);
    }
    out += '}';
  }
  out += R"(],"model":)";
  appendJsonString(out, req.model);
  if (!faults.noUsage) {
    out += R"(,"usage":{"prompt_tokens":)" + std::to_string(tokens) + R"(,"total_tokens":)" +
           std::to_string(tokens) + "}";
  }
  out += '}';
  return out;
}

class EmbeddingsHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit EmbeddingsHandler(const ServerContext& ctx) : ctx_(ctx) {}

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
    if (faults.error200) return sendJson(response, 200, serverErrorBody());
    if (faults.quota) return sendError(response, insufficientQuota(), faults);
    if (faults.context) return sendError(response, contextLengthExceeded(), faults);
    if (faults.status > 0) {
      const int retryAfter = faults.retryAfter >= 0 ? faults.retryAfter : 1;
      return sendError(response, errorForStatus(faults.status, req.model, retryAfter), faults);
    }

    const std::string out = listBody(req, faults);
    if (faults.bothLengths) return sendBothLengths(request, response, out);
    if (faults.cutAfter < 0) return sendJson(response, 200, out);
    static const std::string kJson = "application/json";
    sendTruncated(request, response, kJson, out, faults.cutAfter);
  }

 private:
  const ServerContext& ctx_;
};

}  // namespace
}  // namespace fake_upstream::openai::embeddings

namespace fake_upstream::openai {

Poco::Net::HTTPRequestHandler* embeddingsRoute(std::string_view method, std::string_view path,
                                               const ServerContext& ctx) {
  if (path == "/v1/embeddings" && method == "POST") return new embeddings::EmbeddingsHandler(ctx);
  return nullptr;
}

}  // namespace fake_upstream::openai
