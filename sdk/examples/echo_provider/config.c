#include "config.h"

#include "json_scan.h"

#include <stddef.h>

static int fail(echo_buf* problem, const char* text) {
  buf_append_cstr(problem, text);
  buf_append(problem, "", 1);
  return 0;
}

int echo_read_config(mgw_str config_json, echo_buf* authorization, echo_buf* problem) {
  mgw_str value;
  echo_buf key;
  js_object it;
  size_t i;
  int ok = 1;
  if (!js_is_document(config_json) || !js_object_begin(&it, config_json)) {
    return fail(problem, "the configuration is not a JSON object");
  }
  if (!js_find(config_json, "api_key", &value)) {
    return fail(problem, "api_key: required (the vendor's API key, e.g. api_key: \"${ECHO_API_KEY}\")");
  }
  if (js_kind(value) != '"') {
    return fail(problem, "api_key: must be a string");
  }
  buf_init(&key);
  if (!js_decode_string(value, &key) || key.failed) {
    ok = fail(problem, "api_key: cannot be read");
  } else if (key.len == 0) {
    ok = fail(problem, "api_key: is empty (is its environment variable set?)");
  } else {
    /* It goes into a header line: a control byte there would split it. */
    for (i = 0; i < key.len; ++i) {
      const unsigned char c = (unsigned char)key.data[i];
      if (c < 0x20 || c == 0x7f) {
        ok = fail(problem, "api_key: holds a control character");
        break;
      }
    }
  }
  if (ok) {
    buf_append_cstr(authorization, "Bearer ");
    buf_append(authorization, key.data, key.len);
    buf_append(authorization, "", 1);
    if (authorization->failed) {
      ok = fail(problem, "api_key: out of memory");
    }
  }
  /* The key's bytes are a secret: leave none behind in freed memory. */
  for (i = 0; i < key.cap; ++i) {
    ((volatile char*)key.data)[i] = 0;
  }
  buf_free(&key);
  return ok;
}
