#include "embeddings/embeddings_request.h"

#include "util/json_body.h"
#include "util/json_write.h"

namespace modelgw::embeddings {
namespace {

errors::ApiError invalid(std::string message, std::string param) {
  return errors::bad_request("invalid_parameter", std::move(message), std::move(param));
}

// A token array: non-empty, every element an integer token id.
std::optional<errors::ApiError> check_tokens(const nlohmann::json& tokens, const std::string& param) {
  if (tokens.empty()) return invalid("'" + param + "' is an empty token array", param);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const auto& t = tokens[i];
    if (!t.is_number_integer() ||
        (t.is_number_integer() && !t.is_number_unsigned() && t.get<std::int64_t>() < 0)) {
      return invalid("'" + param + "[" + std::to_string(i) + "]' must be a token id (an integer >= 0)",
                     param + "[" + std::to_string(i) + "]");
    }
  }
  return std::nullopt;
}

}  // namespace

std::variant<EmbeddingsRequest, errors::ApiError> check_embeddings_request(nlohmann::json doc) {
  EmbeddingsRequest r;
  auto model = doc.find("model");
  if (model == doc.end() || model->is_null())
    return errors::bad_request("missing_required_field", "'model' is required", "model");
  if (!model->is_string() || model->get_ref<const std::string&>().empty())
    return invalid("'model' must be a non-empty string (a catalog alias)", "model");
  r.model = model->get<std::string>();

  auto input = doc.find("input");
  if (input == doc.end() || input->is_null())
    return errors::bad_request("missing_required_field", "'input' is required", "input");
  if (input->is_string()) {
    r.input = nlohmann::json::array({std::move(*input)});
  } else if (input->is_array()) {
    if (input->empty()) return invalid("'input' is an empty array: send at least one input", "input");
    if ((*input)[0].is_number_integer()) {
      // One token array.
      if (auto err = check_tokens(*input, "input")) return *err;
      r.tokens = true;
      r.input = nlohmann::json::array({std::move(*input)});
    } else {
      if (input->size() > kMaxInputs) {
        return invalid("'input' holds " + std::to_string(input->size()) + " items; at most " +
                           std::to_string(kMaxInputs) + " per request",
                       "input");
      }
      r.tokens = (*input)[0].is_array();
      for (std::size_t i = 0; i < input->size(); ++i) {
        const auto& item = (*input)[i];
        const std::string param = "input[" + std::to_string(i) + "]";
        if (r.tokens) {
          if (!item.is_array())
            return invalid("'" + param + "' must be a token array, as input[0] is", param);
          if (auto err = check_tokens(item, param)) return *err;
        } else {
          if (!item.is_string()) {
            return invalid("'" + param + "' must be a string (or every item a token array), not " +
                               std::string(util::type_name(item)),
                           param);
          }
          if (item.get_ref<const std::string&>().empty())
            return invalid("'" + param + "' is an empty string: the vendors refuse it", param);
        }
      }
      r.input = std::move(*input);
    }
  } else {
    return invalid("'input' must be a string, an array of strings, or token arrays, not " +
                       std::string(util::type_name(*input)),
                   "input");
  }
  if (r.input.size() == 1 && r.input[0].is_string() && r.input[0].get_ref<const std::string&>().empty())
    return invalid("'input' is an empty string: the vendors refuse it", "input");

  if (auto f = doc.find("encoding_format"); f != doc.end() && !f->is_null()) {
    if (!f->is_string() || (*f != "float" && *f != "base64"))
      return invalid("'encoding_format' must be \"float\" or \"base64\"", "encoding_format");
    r.encoding_format = f->get<std::string>();
  }
  if (auto d = doc.find("dimensions"); d != doc.end() && !d->is_null()) {
    if (!d->is_number_integer() || d->get<std::int64_t>() < 1)
      return invalid("'dimensions' must be an integer >= 1", "dimensions");
    r.dimensions = d->get<std::int64_t>();
  }
  if (auto u = doc.find("user"); u != doc.end() && !u->is_null()) {
    if (!u->is_string()) return invalid("'user' must be a string", "user");
    r.user = u->get<std::string>();
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "model" && key != "input" && key != "encoding_format" && key != "dimensions" &&
        key != "user") {
      // As OpenAI answers an argument it does not know.
      return invalid("unrecognized request argument '" + errors::input_excerpt(key) +
                         "': the embeddings API takes model, input, encoding_format, dimensions and user",
                     errors::input_excerpt(key));
    }
  }
  return r;
}

std::string batch_body(const EmbeddingsRequest& request, std::size_t from, std::size_t count) {
  nlohmann::json body = nlohmann::json::object();
  body["model"] = request.model;
  nlohmann::json input = nlohmann::json::array();
  for (std::size_t i = from; i < from + count && i < request.input.size(); ++i)
    input.push_back(request.input[i]);
  body["input"] = std::move(input);
  body["encoding_format"] = request.encoding_format;
  if (request.dimensions) body["dimensions"] = *request.dimensions;
  if (request.user) body["user"] = *request.user;
  return util::json_text(body);
}

}  // namespace modelgw::embeddings
