#include "embeddings_response.h"

#include "response_mapper.h"

#include <modelgw/provider/ascii.hpp>
#include <modelgw/provider/embeddings.hpp>
#include <modelgw/provider/json.hpp>
#include <modelgw/provider/json_scan.hpp>
#include <modelgw/provider/openai_chunk.hpp>
#include <modelgw/sdk.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mgw::openai {

using namespace mgw::provider;
namespace scan = mgw::provider::json_scan;

namespace {

// What the scan of a 2xx body found; views into the body.
struct ListSeen {
  bool list = false;      // "object": "list"
  bool error = false;     // an "error" member instead
  std::string_view data;  // the "data" array's text
  std::optional<int64_t> prompt_tokens;
};

bool scan_top(std::string_view body, ListSeen& seen) {
  return scan::for_each_member(body, [&seen](std::string_view name, std::string_view value) {
    if (name == "object") {
      seen.list = scan::plain_string(value) == std::string_view("list");
    } else if (name == "data") {
      seen.data = value;
    } else if (name == "error") {
      seen.error = value != "null";
    } else if (name == "usage") {
      // A usage that is not an object, or lacks the count, is left to the host's count.
      scan::for_each_member(value, [&seen](std::string_view n, std::string_view v) {
        if (n == "prompt_tokens") seen.prompt_tokens = scan::count_value(v);
        return true;
      });
    }
    return true;
  });
}

// One data item: its "embedding" text and "index" (or its position).
struct ItemSeen {
  std::string_view embedding;
  std::optional<int64_t> index;
  bool bad_index = false;
  bool other_object = false;
};

// The vectors in index order, or the reason they cannot be relayed.
std::optional<std::vector<std::string_view>> vectors_of(std::string_view data, bool base64,
                                                        std::string& why) {
  std::vector<std::string_view> slots;
  std::vector<ItemSeen> items;
  const bool array = scan::for_each_element(data, [&](std::string_view item) {
    ItemSeen seen;
    const bool object = scan::for_each_member(item, [&seen](std::string_view name, std::string_view value) {
      if (name == "embedding") {
        seen.embedding = value;
      } else if (name == "index") {
        seen.index = scan::count_value(value);
        seen.bad_index = !seen.index.has_value();
      } else if (name == "object") {
        seen.other_object = scan::plain_string(value) != std::string_view("embedding");
      }
      return true;
    });
    if (!object) {
      why = "with a \"data\" item that is not an object";
      return false;
    }
    items.push_back(seen);
    return true;
  });
  if (!array) {
    if (why.empty()) why = "with a \"data\" member that is not an array";
    return std::nullopt;
  }
  slots.resize(items.size());
  for (std::size_t pos = 0; pos < items.size(); ++pos) {
    const ItemSeen& it = items[pos];
    if (it.other_object) {
      why = "with a \"data\" item whose \"object\" is not \"embedding\"";
      return std::nullopt;
    }
    const bool is_string = !it.embedding.empty() && it.embedding.front() == '"';
    if (base64 ? !is_string : !scan::is_number_array(it.embedding)) {
      why = base64 ? "with an \"embedding\" that is not a base64 string"
                   : "with an \"embedding\" that is not an array of numbers";
      return std::nullopt;
    }
    const int64_t index = it.index.value_or(static_cast<int64_t>(pos));
    if (it.bad_index || index < 0 || static_cast<std::size_t>(index) >= slots.size() ||
        !slots[static_cast<std::size_t>(index)].empty()) {
      why = "with \"data\" items whose \"index\" members are not 0 to " + std::to_string(items.size() - 1) +
            ", each once";
      return std::nullopt;
    }
    slots[static_cast<std::size_t>(index)] = it.embedding;
  }
  return slots;
}

}  // namespace

MappedError embeddings_error(MappedError e) {
  if (e.param == "messages") {
    e.param = "input";
  } else if (e.param.empty() && e.http_status >= 400 && e.http_status < 500 && e.http_status != 429 &&
             icontains(e.message, "input")) {
    e.param = "input";
  }
  return e;
}

void map_embeddings_response(const ErrorContext& ctx, const mgw_call_context& call, int32_t status,
                             const mgw_header* headers, std::size_t header_count, std::string_view body,
                             const mgw_response_sink& out) {
  if (status < 200 || status > 299) {
    emit_error(&out, embeddings_error(map_http_error(ctx, status, headers, header_count, body)));
    return;
  }
  ListSeen seen;
  if (!scan_top(body, seen)) {
    return bad_success(
        out, status,
        scan::is_document(body) ? "with a JSON body that is not an object" : "with a body that is not JSON");
  }
  if (seen.error) {
    // {"error": …} instead of a list: the message is worth passing on, and an error body is small.
    std::string prefix = "upstream provider returned an error with HTTP " + std::to_string(status);
    emit_error(&out, provider_failed(with_vendor_message(std::move(prefix), parse_bounded(body), ctx.api_key),
                                     true));
    return;
  }
  if (!seen.list || seen.data.empty()) {
    return bad_success(out, status, "without \"object\": \"list\" and its \"data\"");
  }
  const EmbeddingsAsked asked = embeddings_asked(call);
  std::string why;
  const auto vectors = vectors_of(seen.data, asked.base64, why);
  if (!vectors) {
    return bad_success(out, status, why);
  }
  if (asked.inputs && *asked.inputs != vectors->size()) {
    return bad_success(out, status,
                       "with " + std::to_string(vectors->size()) + " embeddings for " +
                           std::to_string(*asked.inputs) + " inputs");
  }
  const int64_t prompt_tokens = seen.prompt_tokens.value_or(host_prompt_tokens(call));
  const mgw_usage usage = embeddings_usage(prompt_tokens);
  if (out.callback_usage != nullptr) {
    out.callback_usage(out.host_data, &usage);
  }
  if (out.callback_body != nullptr) {
    const std::string list =
        embeddings_list_json(*vectors, json_quoted(view(call.alias)), usage.prompt_tokens);
    out.callback_body(out.host_data, str(list));
  }
}

}  // namespace mgw::openai
