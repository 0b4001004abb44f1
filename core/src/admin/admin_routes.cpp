#include "admin/admin_routes.h"

#include "http/request_id.h"
#include "logging/request_log.h"
#include "util/json_body.h"

#include <Poco/URI.h>

#include <optional>
#include <vector>

namespace modelgw::admin {
namespace {

using nlohmann::json;

std::vector<std::string> segments_of(const std::string& path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    auto j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) {
      std::string decoded;
      Poco::URI::decode(path.substr(i, j - i), decoded);
      out.push_back(std::move(decoded));
    }
    i = j + 1;
  }
  return out;
}

Actor actor_of(const auth::Principal& p, std::string_view request_id) {
  return Actor{p.describe(), std::string(request_id)};
}

std::optional<std::int64_t> positive_number(const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const auto n = std::stoll(text);
  return n > 0 ? std::optional(n) : std::nullopt;
}

// One route: its method and what it does with the path's parameters.
struct Match {
  const char* method;
  std::function<std::pair<int, json>()> run;
};

}  // namespace

AdminReply AdminRoutes::answer(const AdminRequest& request, const auth::Principal& principal) {
  const std::string path(request.path);
  const auto seg = segments_of(path);  // "internal", "v1", ...
  const std::string method(request.method);
  const Actor actor = actor_of(principal, request.request_id);
  auto fail = [](errors::ApiError e) {
    AdminReply r;
    r.status = e.status;
    r.error = std::move(e);
    return r;
  };

  // The body of a POST/PATCH, as a JSON object ({} when there is none).
  auto body = [&]() -> json {
    if (request.body_too_large) {
      throw AdminError(errors::ApiError{413,
                                        "request_too_large",
                                        "the request body is larger than this gateway accepts (" +
                                            std::to_string(max_body_bytes_) + " bytes)",
                                        {}});
    }
    const auto raw = request.body;
    if (raw.find_first_not_of(" \t\r\n") == std::string_view::npos) return json::object();
    auto parsed = util::parse_json_object(raw);
    if (auto* err = std::get_if<errors::ApiError>(&parsed)) throw AdminError(*err);
    return std::get<json>(std::move(parsed));
  };
  auto id_at = [&](std::size_t i, const char* what) {
    auto n = positive_number(seg[i]);
    if (!n)
      throw AdminError(errors::bad_request(
          "invalid_parameter",
          std::string(what) + " must be a positive integer, not '" + seg[i].substr(0, 32) + "'", what));
    return *n;
  };

  std::vector<Match> routes;
  const std::size_t n = seg.size();
  if (n == 3 && seg[2] == "tenants") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.list_tenants()}; }});
    routes.push_back({"POST", [&] {
                        auto b = body();
                        auto name = b.value("name", json());
                        if (!name.is_string()) {
                          throw AdminError(errors::bad_request(
                              "missing_required_field", "'name' is required: the tenant's name", "name"));
                        }
                        return std::pair{201, service_.create_tenant(actor, name.get<std::string>())};
                      }});
  } else if (n == 4 && seg[2] == "tenants") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.get_tenant(seg[3])}; }});
  } else if (n == 5 && seg[2] == "tenants" && seg[4] == "settings") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.get_tenant(seg[3])["settings"]}; }});
    routes.push_back({"PATCH", [&] {
                        return std::pair{200, service_.update_settings(actor, seg[3], body())};
                      }});
  } else if (n == 5 && seg[2] == "tenants" && seg[4] == "keys") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.list_keys(seg[3])}; }});
    routes.push_back({"POST", [&] {
                        auto b = body();
                        return std::pair{201, service_.create_key(actor, seg[3], b.value("scopes", json()))};
                      }});
  } else if (n == 3 && seg[2] == "keys") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.list_keys("")}; }});
  } else if (n == 5 && seg[2] == "keys" && (seg[4] == "revoke" || seg[4] == "rotate")) {
    routes.push_back({"POST", [&] {
                        const auto id = id_at(3, "id");
                        (void)body();
                        return seg[4] == "revoke" ? std::pair{200, service_.revoke_key(actor, id)}
                                                  : std::pair{201, service_.rotate_key(actor, id)};
                      }});
  } else if (n == 5 && seg[2] == "tenants" && seg[4] == "budgets") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.list_budgets(seg[3])}; }});
    routes.push_back({"POST", [&] { return std::pair{201, service_.create_budget(actor, seg[3], body())}; }});
  } else if (n == 4 && seg[2] == "budgets") {
    routes.push_back({"PATCH", [&] {
                        const auto id = id_at(3, "id");
                        return std::pair{200, service_.update_budget(actor, id, body())};
                      }});
    routes.push_back({"DELETE", [&] {
                        return std::pair{200, service_.delete_budget(actor, id_at(3, "id"))};
                      }});
  } else if (n == 5 && seg[2] == "tenants" && seg[4] == "credits") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.get_credits(seg[3])}; }});
    routes.push_back({"POST", [&] {
                        return std::pair{200, service_.top_up_credits(actor, seg[3], body())};
                      }});
  } else if (n == 5 && seg[2] == "tenants" && seg[4] == "prompts") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.list_prompts(seg[3])}; }});
  } else if (n == 6 && seg[2] == "tenants" && seg[4] == "prompts") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.get_prompt(seg[3], seg[5])}; }});
  } else if (n == 7 && seg[2] == "tenants" && seg[4] == "prompts" && seg[6] == "versions") {
    routes.push_back({"GET", [&] { return std::pair{200, service_.get_prompt(seg[3], seg[5])}; }});
    routes.push_back({"POST", [&] {
                        return std::pair{201, service_.add_prompt_version(actor, seg[3], seg[5], body())};
                      }});
  } else if (n == 9 && seg[2] == "tenants" && seg[4] == "prompts" && seg[6] == "versions" &&
             seg[8] == "activate") {
    routes.push_back(
        {"POST", [&] {
           const auto version = id_at(7, "version");
           (void)body();
           return std::pair{200, service_.activate_prompt_version(actor, seg[3], seg[5], version)};
         }});
  }

  if (routes.empty())
    return fail(errors::not_found("not_found", "no endpoint at " + errors::input_excerpt(method) + " " +
                                                   errors::input_excerpt(path, 128)));
  std::string allowed;
  for (const auto& r : routes) {
    if (method == r.method) {
      try {
        auto [status, answer] = r.run();
        AdminReply reply;
        reply.status = status;
        http::append_with_request_id(reply.body, answer.dump(-1, ' ', false, json::error_handler_t::replace),
                                     request.request_id);
        return reply;
      } catch (const AdminError& e) {
        return fail(e.error());
      } catch (const plugins::StorageError& e) {
        logging::for_request(request.request_id).error("admin operation failed: {}", e.what());
        return fail(errors::internal_error("the gateway's storage failed; retry shortly"));
      }
    }
    allowed += (allowed.empty() ? "" : ", ") + std::string(r.method);
  }
  AdminReply reply = fail(errors::ApiError{405,
                                           "method_not_allowed",
                                           errors::input_excerpt(method) + " is not allowed on " +
                                               errors::input_excerpt(path, 128) + "; use " + allowed,
                                           {}});
  reply.allow = allowed;
  return reply;
}

}  // namespace modelgw::admin
