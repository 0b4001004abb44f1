#include "usage.h"

#include "json_scan.h"

#include <string.h>

static int64_t saturating_add(int64_t a, int64_t b) {
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

mgw_usage echo_read_usage(mgw_str usage_object, int64_t host_prompt_tokens) {
  mgw_usage u;
  mgw_str v;
  memset(&u, 0, sizeof u);
  u.struct_size = sizeof u;
  u.prompt_tokens = host_prompt_tokens > 0 ? host_prompt_tokens : 0;
  if (js_kind(usage_object) != '{') {
    u.total_tokens = u.prompt_tokens;
    return u;
  }
  if (js_find(usage_object, "prompt_tokens", &v)) {
    js_read_count(v, &u.prompt_tokens);
  }
  if (js_find(usage_object, "completion_tokens", &v)) {
    js_read_count(v, &u.completion_tokens);
  }
  if (!js_find(usage_object, "total_tokens", &v) || !js_read_count(v, &u.total_tokens)) {
    u.total_tokens = saturating_add(u.prompt_tokens, u.completion_tokens);
  }
  /* prompt_tokens_details.cached_tokens: billed at the cached-input price. */
  if (js_find(usage_object, "prompt_tokens_details", &v) && js_find(v, "cached_tokens", &v) &&
      js_read_count(v, &u.cached_prompt_tokens) && u.cached_prompt_tokens > u.prompt_tokens) {
    u.cached_prompt_tokens = u.prompt_tokens;
  }
  return u;
}

size_t echo_generated_bytes(mgw_str choices, const char* member) {
  js_array it;
  mgw_str choice;
  mgw_str v;
  size_t bytes = 0;
  if (!js_array_begin(&it, choices)) {
    return 0;
  }
  while (js_array_next(&it, &choice) == 1) {
    if (js_find(choice, member, &v) && js_find(v, "content", &v) && js_kind(v) == '"') {
      bytes += v.len - 2; /* the quotes */
    }
  }
  return bytes;
}

mgw_usage echo_estimate_usage(int64_t host_prompt_tokens, size_t generated_bytes) {
  const mgw_str none = {NULL, 0};
  mgw_usage u = echo_read_usage(none, host_prompt_tokens);
  u.completion_tokens = (int64_t)(generated_bytes / 4 + (generated_bytes % 4 != 0));
  u.total_tokens = saturating_add(u.prompt_tokens, u.completion_tokens);
  return u;
}

void echo_append_usage_json(echo_buf* out, const mgw_usage* usage) {
  buf_append_cstr(out, "{\"prompt_tokens\":");
  buf_append_int(out, usage->prompt_tokens);
  buf_append_cstr(out, ",\"completion_tokens\":");
  buf_append_int(out, usage->completion_tokens);
  buf_append_cstr(out, ",\"total_tokens\":");
  buf_append_int(out, usage->total_tokens);
  if (usage->cached_prompt_tokens > 0) {
    buf_append_cstr(out, ",\"prompt_tokens_details\":{\"cached_tokens\":");
    buf_append_int(out, usage->cached_prompt_tokens);
    buf_append_cstr(out, "}");
  }
  buf_append_cstr(out, "}");
}
