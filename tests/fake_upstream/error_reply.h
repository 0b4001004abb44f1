// An error answer: status plus its JSON body, built by each vendor's
// *_errors.cpp in that vendor's shape.
#pragma once

#include <string>

namespace fake_upstream {

struct ErrorReply {
  int status = 500;
  std::string body;
};

}  // namespace fake_upstream
