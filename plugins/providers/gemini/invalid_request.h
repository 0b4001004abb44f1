// A client request Gemini cannot take: thrown deep in the translation, caught
// once in build_request and reported as 400 invalid_parameter. An exception
// keeps every translator free of error plumbing; it never leaves the plugin.
#pragma once

#include <exception>
#include <string>
#include <utility>

namespace mgw::gemini {

class InvalidRequest : public std::exception {
 public:
  InvalidRequest(std::string param, std::string message)
      : param_(std::move(param)), message_(std::move(message)) {}

  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& param() const noexcept { return param_; }
  const std::string& message() const noexcept { return message_; }

 private:
  std::string param_;    // the client's field, e.g. "messages[2].tool_call_id"
  std::string message_;  // never quotes more than a short, cut piece of the client's input
};

}  // namespace mgw::gemini
