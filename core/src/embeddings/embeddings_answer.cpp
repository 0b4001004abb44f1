#include "embeddings/embeddings_answer.h"

#include "chat/body_members.h"

#include <nlohmann/json.hpp>

namespace modelgw::embeddings {

EmbeddingsAnswer::EmbeddingsAnswer(std::string_view request_id, std::string_view alias, std::size_t inputs)
    : inputs_(inputs) {
  out_.reserve(128);  // the vectors dominate: add() reserves for them
  out_.append("{\"request_id\":")
      .append(nlohmann::json(request_id).dump())
      .append(",\"object\":\"list\",\"model\":")
      .append(nlohmann::json(alias).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .append(",\"data\":[");
}

bool EmbeddingsAnswer::add(std::string_view batch, std::size_t from, std::size_t count) {
  const auto data = chat::locate_value(batch, chat::JsonPath{std::string("data")});
  if (!data) return false;
  const auto items = chat::array_elements(batch, data->first);
  if (!items || items->size() != count) return false;
  // The first batch's size, times the batches, is what the whole needs.
  if (added_ == 0 && count > 0) out_.reserve(out_.size() + batch.size() / count * inputs_ + 64);
  for (std::size_t k = 0; k < items->size(); ++k) {
    const auto [begin, end] = (*items)[k];
    const std::string_view item = batch.substr(begin, end - begin);
    if (item.size() < 3 || item.front() != '{') return false;  // an item holds its vector
    // The item's index is its place in the whole request: written again
    // (the plugin counted from 0 in its batch).
    const auto index = chat::locate_value(item, chat::JsonPath{std::string("index")});
    if (added_ > 0) out_.push_back(',');
    if (index) {
      out_.append(item.substr(0, index->first))
          .append(std::to_string(from + k))
          .append(item.substr(index->second));
    } else {
      out_.append("{\"index\":").append(std::to_string(from + k)).append(",").append(item.substr(1));
    }
    ++added_;
  }
  return true;
}

std::string EmbeddingsAnswer::finish(std::int64_t prompt_tokens) {
  const std::string tokens = std::to_string(prompt_tokens);
  out_.append("],\"usage\":{\"prompt_tokens\":")
      .append(tokens)
      .append(",\"total_tokens\":")
      .append(tokens)
      .append("}}");
  return std::move(out_);
}

}  // namespace modelgw::embeddings
