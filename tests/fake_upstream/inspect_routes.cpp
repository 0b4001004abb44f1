#include "inspect_routes.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>

#include "edge_faults.h"
#include "http_util.h"

namespace fake_upstream {
namespace {

class InspectHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit InspectHandler(const ServerContext& ctx) : ctx_(ctx) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    readBody(request);  // drain it so the connection can be reused
    const auto path = pathOf(request.getURI());
    const auto& method = request.getMethod();
    if (path == "/_fake/health") {
      if (method != "GET") return methodNotAllowed(response);
      return sendJson(response, 200, R"({"status":"ok"})");
    }
    if (path == "/_fake/requests") {
      if (method == "GET") return sendJson(response, 200, ctx_.log.toJson());
      if (method == "DELETE") {
        return sendJson(response, 200, "{\"cleared\":" + std::to_string(ctx_.log.clear()) + "}");
      }
      return methodNotAllowed(response);
    }
    if (path == "/_fake/interim") {
      if (method != "GET") return methodNotAllowed(response);
      const auto counts = interimCounts();
      return sendJson(
          response, 200,
          "{\"open\":" + std::to_string(counts.open) + ",\"total\":" + std::to_string(counts.total) + "}");
    }
    sendJson(response, 404, R"({"error":"no such fake_upstream endpoint"})");
  }

 private:
  static void methodNotAllowed(Poco::Net::HTTPServerResponse& response) {
    sendJson(response, 405, R"({"error":"method not allowed"})");
  }

  const ServerContext& ctx_;
};

}  // namespace

Poco::Net::HTTPRequestHandler* makeInspectHandler(const ServerContext& ctx) {
  return new InspectHandler(ctx);
}

}  // namespace fake_upstream
