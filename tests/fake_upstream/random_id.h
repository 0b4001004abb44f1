// Random identifiers in the shape each vendor uses (chatcmpl-..., msg_...).
#pragma once

#include <string>

namespace fake_upstream {

// Appends `n` random characters from [A-Za-z0-9].
void appendRandomAlnum(std::string& out, int n);

}  // namespace fake_upstream
