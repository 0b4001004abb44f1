// Maps each HTTP call to its endpoint: gives it a request_id, authenticates
// /v1/* calls, answers unknown paths (404) and wrong methods (405) in the
// error envelope, and turns any escaped exception into a 500 envelope.
#pragma once

#include "auth/authenticator.h"
#include "catalog/catalog.h"
#include "chat/chat_service.h"

#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include <atomic>

namespace modelgw::http {

struct RouterDeps {
  auth::Authenticator& authenticator;
  chat::ChatService& chat;
  const catalog::Catalog& catalog;
  std::size_t max_body_bytes;  // also how much of an unread body is drained
};

class Router : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Router(RouterDeps deps) : deps_(deps) {}

  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override;

  // Calls being handled right now; shutdown waits for this to reach zero.
  int in_flight() const { return in_flight_.load(); }

  void dispatch(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response);

 private:
  RouterDeps deps_;
  std::atomic<int> in_flight_{0};
};

}  // namespace modelgw::http
