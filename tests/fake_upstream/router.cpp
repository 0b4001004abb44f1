#include "router.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include "anthropic_routes.h"
#include "gemini_routes.h"
#include "http_util.h"
#include "inspect_routes.h"
#include "openai_embeddings_routes.h"
#include "openai_errors.h"
#include "openai_responses_routes.h"
#include "openai_routes.h"

namespace fake_upstream {
namespace {

// Any API path no vendor serves: recorded like the rest (a wrong path is
// exactly what a test wants to see), answered like OpenAI's unknown URL.
class UnknownRouteHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit UnknownRouteHandler(const ServerContext& ctx) : ctx_(ctx) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    ctx_.log.record(request, readBody(request));
    const auto error = openai::invalidUrl(request.getMethod(), pathOf(request.getURI()));
    sendJson(response, error.status, error.body);
  }

 private:
  const ServerContext& ctx_;
};

}  // namespace

Poco::Net::HTTPRequestHandler* Router::createRequestHandler(const Poco::Net::HTTPServerRequest& request) {
  const auto path = pathOf(request.getURI());
  if (path.starts_with("/_fake/")) return makeInspectHandler(ctx_);
  const auto& method = request.getMethod();
  if (auto* handler = openai::route(method, path, ctx_)) return handler;
  if (auto* handler = openai::responsesRoute(method, path, ctx_)) return handler;
  if (auto* handler = openai::embeddingsRoute(method, path, ctx_)) return handler;
  if (auto* handler = anthropic::route(method, path, ctx_)) return handler;
  if (auto* handler = gemini::route(method, path, ctx_)) return handler;
  return new UnknownRouteHandler(ctx_);
}

}  // namespace fake_upstream
