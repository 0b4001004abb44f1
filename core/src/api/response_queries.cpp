// GET /v1/responses/{id}, DELETE /v1/responses/{id} and
// GET /v1/responses/{id}/input_items: the caller's tenant's kept responses
// (responses/response_store.h), read from the store in the query lane. A
// response of another tenant is not found, as one never made.
#include "api/router.h"

#include "logging/request_log.h"
#include "plugins/storage_failure.h"
#include "responses/response_object.h"
#include "responses/response_store.h"

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <chrono>
#include <variant>

namespace modelgw::api {
namespace {

using nlohmann::json;

errors::ApiError response_not_found(std::string_view id) {
  return errors::not_found(
      "response_not_found",
      "no response '" + errors::input_excerpt(id) +
          "' is kept for this tenant: it was never stored (store: false), expired, or was deleted");
}

// input_items' paging: order (desc, OpenAI's default, or asc), limit (1 to
// 100, default 20), after (an item id).
struct ItemsPage {
  bool ascending = false;
  std::size_t limit = 20;
  std::string after;
};

std::variant<ItemsPage, errors::ApiError> read_items_page(std::string_view query) {
  ItemsPage page;
  Poco::URI::QueryParameters params;
  try {
    params = Poco::URI("/?" + std::string(query)).getQueryParameters();
  } catch (const Poco::Exception&) {
    return errors::bad_request("invalid_parameter", "the query string is not valid percent-encoding");
  }
  for (const auto& [name, value] : params) {
    if (name == "order") {
      if (value != "asc" && value != "desc")
        return errors::bad_request("invalid_parameter", "'order' must be asc or desc", "order");
      page.ascending = value == "asc";
    } else if (name == "limit") {
      std::size_t n = 0;
      const bool digits =
          !value.empty() && value.size() <= 3 && value.find_first_not_of("0123456789") == std::string::npos;
      if (digits) n = std::stoul(value);
      if (!digits || n < 1 || n > 100)
        return errors::bad_request("invalid_parameter", "'limit' must be an integer from 1 to 100", "limit");
      page.limit = n;
    } else if (name == "after") {
      page.after = value;
    } else if (name != "include" && name != "include[]") {
      // include (the Node SDK's form) or include[] (the Python SDK's
      // brackets) are taken and ignored: nothing extra is kept to include.
      return errors::bad_request("unknown_parameter",
                                 "unknown query parameter '" + errors::input_excerpt(name) + "'",
                                 errors::input_excerpt(name));
    }
  }
  return page;
}

json list_items(json items, const ItemsPage& page) {
  if (!page.ascending) std::reverse(items.begin(), items.end());
  std::size_t start = 0;
  if (!page.after.empty()) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (items[i].value("id", "") == page.after) start = i + 1;
    }
  }
  json data = json::array();
  for (std::size_t i = start; i < items.size() && data.size() < page.limit; ++i) data.push_back(items[i]);
  const bool more = start + data.size() < items.size();
  json list = {{"object", "list"}, {"data", data}, {"has_more", more}};
  list["first_id"] = data.empty() ? json(nullptr) : data.front()["id"];
  list["last_id"] = data.empty() ? json(nullptr) : data.back()["id"];
  return list;
}

}  // namespace

net::Task<void> Router::stored_response(http::ServerCall& call, const auth::Principal& principal,
                                        std::string id, bool input_items) {
  if (deps_.responses == nullptr) {
    call.send_error(response_not_found(id));
    co_return;
  }
  ItemsPage page;
  if (input_items) {
    auto read = read_items_page(call.request().query());
    if (auto* err = std::get_if<errors::ApiError>(&read)) {
      call.send_error(*err);
      co_return;
    }
    page = std::get<ItemsPage>(read);
  }
  const auto ticket = enter_query(call, principal);
  if (call.answered()) co_return;
  const bool remove = call.request().method == "DELETE";
  auto answer = co_await net::offload(query_pool(), [&]() -> std::variant<std::string, errors::ApiError> {
    try {
      auto& storage = deps_.responses->storage();
      if (remove) {
        if (!storage.response_delete(principal.tenant_id, id)) return response_not_found(id);
        return json{{"id", id}, {"object", "response.deleted"}, {"deleted", true}}.dump();
      }
      auto kept = storage.response_get(principal.tenant_id, id, responses::ResponseStore::now_unix_ms());
      if (!kept) return response_not_found(id);
      if (!input_items) {
        // The object as it was answered, under this call's request_id.
        json response = json::parse(kept->response_json, nullptr, false);
        if (!response.is_object()) return errors::internal_error("a kept response is not a JSON object");
        response.erase("request_id");
        return response.dump(-1, ' ', false, json::error_handler_t::replace);
      }
      const json messages = json::parse(kept->input_json, nullptr, false);
      return list_items(responses::input_items(messages, id), page)
          .dump(-1, ' ', false, json::error_handler_t::replace);
    } catch (const std::exception& e) {
      logging::for_request(call.request_id()).error("stored response query failed: {}", e.what());
      return plugins::storage_failure_error(e);
    }
  });
  if (auto* err = std::get_if<errors::ApiError>(&answer)) {
    call.send_error(*err);
    co_return;
  }
  call.send_object(200, std::get<std::string>(answer));
}

}  // namespace modelgw::api
