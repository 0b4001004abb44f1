// Picks the handler for each request: /_fake/ inspection endpoints, then
// each vendor's routes (OpenAI, Anthropic, Gemini), and an OpenAI-style 404
// for anything else.
#pragma once

#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include "server_context.h"

namespace fake_upstream {

class Router : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Router(const ServerContext& ctx) : ctx_(ctx) {}

  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override;

 private:
  const ServerContext& ctx_;
};

}  // namespace fake_upstream
