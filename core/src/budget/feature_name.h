// The X-Feature header names the feature a request is charged to (budgets
// per feature); admin and usage queries take the same name as a parameter.
#pragma once

#include "errors/api_error.h"

#include <optional>
#include <string_view>

namespace modelgw::budget {

// 1 to 64 of A-Z a-z 0-9 . _ : - ; an error naming the X-Feature header otherwise.
std::optional<errors::ApiError> check_feature(std::string_view feature);

}  // namespace modelgw::budget
