#include "envelope.h"

#include "json_scan.h"

static void append_member(echo_buf* out, int* count, mgw_str name, mgw_str value) {
  if ((*count)++ > 0) {
    buf_append(out, ",", 1);
  }
  buf_append(out, "\"", 1);
  buf_append(out, name.ptr, name.len);
  buf_append(out, "\":", 2);
  buf_append(out, value.ptr, value.len);
}

static int choices_of(mgw_str value) {
  size_t i;
  if (js_kind(value) != '[') {
    return ECHO_CHOICES_NONE;
  }
  for (i = 1; i < value.len; ++i) {
    const char c = value.ptr[i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      return c == ']' ? ECHO_CHOICES_EMPTY : ECHO_CHOICES_SOME;
    }
  }
  return ECHO_CHOICES_NONE;
}

int echo_rewrite_object(mgw_str object, mgw_str alias, int keep_usage, echo_buf* out, mgw_str* usage,
                        int* choices) {
  js_object it;
  mgw_str name;
  mgw_str value;
  int count = 0;
  int step;
  usage->ptr = NULL;
  usage->len = 0;
  *choices = ECHO_CHOICES_NONE;
  if (!js_is_document(object) || !js_object_begin(&it, object)) {
    return 0;
  }
  buf_append(out, "{\"model\":", 9);
  buf_append_json_string(out, alias.ptr, alias.len);
  ++count;
  while ((step = js_object_next(&it, &name, &value)) == 1) {
    if (js_key_is(name, "model") || js_key_is(name, "request_id")) {
      continue;
    }
    if (js_key_is(name, "usage")) {
      if (js_kind(value) == '{') {
        *usage = value;
      }
      if (!keep_usage || js_kind(value) != '{') {
        continue; /* e.g. the "usage": null OpenAI puts on every chunk */
      }
    } else if (js_key_is(name, "choices")) {
      *choices = choices_of(value);
    }
    append_member(out, &count, name, value);
  }
  return step == 0;
}

int echo_has_error(mgw_str object) {
  mgw_str value;
  return js_find(object, "error", &value) && js_kind(value) != 'n';
}
