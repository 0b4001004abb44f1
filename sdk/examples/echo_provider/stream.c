#include "stream.h"

#include "buf.h"
#include "envelope.h"
#include "errors.h"
#include "json_scan.h"
#include "usage.h"

#include <stdlib.h>
#include <string.h>

/* OpenAI's events are a few hundred bytes; these bounds only stop a vendor
 * that never ends a line from growing the buffers without limit. */
#define MAX_LINE_BYTES ((size_t)1 << 20)
#define MAX_EVENT_BYTES ((size_t)4 << 20)

enum { STREAM_OPEN, STREAM_DONE, STREAM_FAILED };

struct mgw_provider_stream {
  echo_buf alias;
  echo_buf line;    /* the current line so far */
  echo_buf data;    /* the current event's data lines, joined with '\n' */
  echo_buf chunk;   /* the client's chunk being built */
  echo_buf last_id; /* the vendor's last chunk id, as JSON text */
  int64_t created;
  int64_t prompt_tokens;
  int state;
  int has_data;
  int error_event; /* the current event is named "error" */
  int after_cr;    /* the last byte was CR: an LF right after it ends no second line */
  int emitted;     /* a chunk went to the host: a retry could duplicate it */
  int has_usage;   /* the vendor sent usage: `usage` holds it */
  mgw_usage usage;
  size_t generated; /* bytes of content so far, for an estimate without usage */
};

static mgw_str view_of(const echo_buf* b) {
  mgw_str v;
  v.ptr = b->data;
  v.len = b->len;
  return v;
}

static void fail(mgw_provider_stream* s, const mgw_response_sink* out, const char* message) {
  s->state = STREAM_FAILED;
  /* Before any chunk the gateway may try again or fall back; after, not. */
  echo_fail_provider(out, message, !s->emitted);
}

static void fail_memory(mgw_provider_stream* s, const mgw_response_sink* out) {
  s->state = STREAM_FAILED;
  echo_fail(out, 500, MGW_ERR_INTERNAL, ECHO_OUT_OF_MEMORY, NULL, !s->emitted, -1);
}

/* One vendor chunk. Its usage is kept for the final usage chunk, not
 * forwarded: the client gets usage once, in the shape plugin.h gives. */
static void on_chunk(mgw_provider_stream* s, mgw_str event, const mgw_response_sink* out) {
  mgw_str vendor_usage;
  mgw_str v;
  int choices;
  buf_clear(&s->chunk);
  if (!echo_rewrite_object(event, view_of(&s->alias), 0, &s->chunk, &vendor_usage, &choices)) {
    fail(s, out, "upstream sent an invalid stream event");
    return;
  }
  if (echo_has_error(event)) {
    fail(s, out, "upstream provider failed during the stream");
    return;
  }
  buf_append(&s->chunk, "}", 1);
  if (js_find(event, "id", &v) && js_kind(v) == '"') {
    buf_clear(&s->last_id);
    buf_append(&s->last_id, v.ptr, v.len);
  }
  if (js_find(event, "created", &v)) {
    js_read_count(v, &s->created);
  }
  if (js_find(event, "choices", &v)) {
    s->generated += echo_generated_bytes(v, "delta");
  }
  if (s->chunk.failed || s->last_id.failed) {
    fail_memory(s, out);
    return;
  }
  if (vendor_usage.len > 0) {
    s->usage = echo_read_usage(vendor_usage, s->prompt_tokens);
    s->has_usage = 1;
  }
  /* OpenAI's own usage chunk ("choices": []) has nothing else to say. */
  if (choices != ECHO_CHOICES_EMPTY || vendor_usage.len == 0) {
    s->emitted = 1;
    out->callback_chunk(out->host_data, view_of(&s->chunk));
  }
}

/* After the last choice chunk: usage, to the host and in the final chunk
 * {"id","object","created","model","choices":[],"usage"}. Without the
 * vendor's usage, an estimate. */
static void emit_usage_chunk(mgw_provider_stream* s, const mgw_response_sink* out) {
  if (!s->has_usage) {
    s->usage = echo_estimate_usage(s->prompt_tokens, s->generated);
  }
  buf_clear(&s->chunk);
  buf_append_cstr(&s->chunk, "{\"id\":");
  if (s->last_id.len > 0) {
    buf_append(&s->chunk, s->last_id.data, s->last_id.len);
  } else {
    buf_append_cstr(&s->chunk, "\"chatcmpl-echo\"");
  }
  buf_append_cstr(&s->chunk, ",\"object\":\"chat.completion.chunk\",\"created\":");
  buf_append_int(&s->chunk, s->created);
  buf_append_cstr(&s->chunk, ",\"model\":");
  buf_append_json_string(&s->chunk, s->alias.data, s->alias.len);
  buf_append_cstr(&s->chunk, ",\"choices\":[],\"usage\":");
  echo_append_usage_json(&s->chunk, &s->usage);
  buf_append(&s->chunk, "}", 1);
  if (s->chunk.failed) {
    fail_memory(s, out);
    return;
  }
  out->callback_usage(out->host_data, &s->usage);
  out->callback_chunk(out->host_data, view_of(&s->chunk));
}

static void dispatch(mgw_provider_stream* s, const mgw_response_sink* out) {
  const int error_event = s->error_event;
  s->error_event = 0;
  if (!s->has_data) {
    return; /* an event without data carries nothing */
  }
  s->has_data = 0;
  if (error_event) {
    /* Some compatible servers name the event instead of sending {"error": ...}. */
    fail(s, out, "upstream provider failed during the stream");
  } else if (s->data.len == 6 && memcmp(s->data.data, "[DONE]", 6) == 0) {
    s->state = STREAM_DONE; /* the host writes the client's [DONE] itself */
    emit_usage_chunk(s, out);
  } else {
    on_chunk(s, view_of(&s->data), out);
  }
  buf_clear(&s->data);
}

static int field_is(const char* line, size_t field_len, const char* name) {
  return field_len == strlen(name) && memcmp(line, name, field_len) == 0;
}

/* One complete line, without its end. */
static void on_line(mgw_provider_stream* s, const mgw_response_sink* out) {
  const char* line = s->line.data;
  const size_t len = s->line.len;
  const char* colon;
  size_t field_len;
  const char* value;
  size_t value_len;
  if (len == 0) {
    dispatch(s, out);
    return;
  }
  if (line[0] == ':') {
    return; /* a comment, e.g. a keep-alive */
  }
  colon = (const char*)memchr(line, ':', len);
  field_len = colon == NULL ? len : (size_t)(colon - line);
  value = colon == NULL ? line + len : colon + 1;
  value_len = (size_t)(line + len - value);
  if (value_len > 0 && value[0] == ' ') {
    ++value;
    --value_len;
  }
  if (field_is(line, field_len, "data")) {
    if (s->has_data) {
      buf_append(&s->data, "\n", 1);
    }
    buf_append(&s->data, value, value_len);
    s->has_data = 1;
    if (s->data.failed) {
      fail_memory(s, out);
    } else if (s->data.len > MAX_EVENT_BYTES) {
      fail(s, out, "upstream sent a stream event larger than the echo plugin accepts");
    }
  } else if (field_is(line, field_len, "event")) {
    s->error_event = value_len == 5 && memcmp(value, "error", 5) == 0;
  }
  /* id: and retry: mean nothing to a translator. */
}

mgw_provider_stream* echo_stream_new(const mgw_call_context* call) {
  mgw_provider_stream* s = (mgw_provider_stream*)calloc(1, sizeof *s);
  if (s == NULL) {
    return NULL;
  }
  buf_init(&s->alias);
  buf_init(&s->line);
  buf_init(&s->data);
  buf_init(&s->chunk);
  buf_init(&s->last_id);
  buf_append(&s->alias, call->alias.ptr, call->alias.len);
  s->created = call->created_unix;
  s->prompt_tokens = call->prompt_tokens;
  s->state = STREAM_OPEN;
  if (s->alias.failed) {
    echo_stream_destroy(s);
    return NULL;
  }
  return s;
}

void echo_stream_data(mgw_provider_stream* s, mgw_str bytes, const mgw_response_sink* out) {
  const char* p = bytes.ptr;
  const char* end = bytes.ptr + bytes.len;
  if (bytes.len == 0) {
    return;
  }
  while (p < end && s->state == STREAM_OPEN) {
    const char* run = p;
    if (s->after_cr) {
      s->after_cr = 0;
      if (*p == '\n') {
        ++p; /* CRLF: the CR already ended the line */
        continue;
      }
    }
    while (p < end && *p != '\r' && *p != '\n') {
      ++p;
    }
    buf_append(&s->line, run, (size_t)(p - run));
    if (s->line.failed) {
      fail_memory(s, out);
      return;
    }
    if (s->line.len > MAX_LINE_BYTES) {
      fail(s, out, "upstream sent a stream line longer than the echo plugin accepts");
      return;
    }
    if (p < end) {
      s->after_cr = *p == '\r';
      ++p;
      on_line(s, out);
      buf_clear(&s->line);
    }
  }
}

void echo_stream_end(mgw_provider_stream* s, const mgw_response_sink* out) {
  if (s->state == STREAM_OPEN) {
    /* Lenient at the very end: a last line or event without its terminator
     * still counts (some servers close right after "data: [DONE]"). */
    if (s->line.len > 0) {
      on_line(s, out);
      buf_clear(&s->line);
    }
    if (s->state == STREAM_OPEN) {
      dispatch(s, out);
    }
  }
  if (s->state == STREAM_OPEN) {
    fail(s, out, "upstream stream ended before it was complete");
  }
}

void echo_stream_destroy(mgw_provider_stream* s) {
  if (s == NULL) {
    return;
  }
  buf_free(&s->alias);
  buf_free(&s->line);
  buf_free(&s->data);
  buf_free(&s->chunk);
  buf_free(&s->last_id);
  free(s);
}
