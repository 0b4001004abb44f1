// Prometheus text exposition format 0.0.4 (what GET /metrics answers): the
// pieces a scrape writes, appended to one string. Only used at scrape time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace modelgw::metrics {

inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

// A label value with '\\', '"' and newlines escaped (names are ours, values
// come from the configuration: aliases and provider names).
std::string escape_label_value(std::string_view value);

// `# HELP name help` and `# TYPE name type`; once per family, before its samples.
void write_family(std::string& out, std::string_view name, std::string_view help, std::string_view type);

// `name{labels} value`; `labels` is pre-rendered (`a="x",b="y"`, may be empty).
void write_sample(std::string& out, std::string_view name, std::string_view labels, std::uint64_t value);
void write_sample(std::string& out, std::string_view name, std::string_view labels, std::int64_t value);
void write_sample(std::string& out, std::string_view name, std::string_view labels, double value);

// The same for a family's part (`suffix`: "_bucket", "_sum", "_count") with
// one more pre-rendered label (`extra`, may be empty), without building either.
void write_sample(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels,
                  std::string_view extra, std::uint64_t value);
void write_sample(std::string& out, std::string_view name, std::string_view suffix, std::string_view labels,
                  std::string_view extra, double value);

// Joins two pre-rendered label lists with a comma when both are non-empty.
std::string join_labels(std::string_view a, std::string_view b);

}  // namespace modelgw::metrics
