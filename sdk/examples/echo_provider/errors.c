#include "errors.h"

#include "buf.h"
#include "json_scan.h"

#include <string.h>

/* A delay we pass on is at most about 31 years: far from any overflow. */
#define MAX_DELAY_MS 1000000000000LL
/* The vendor's "param" is passed on only when it looks like a parameter path. */
#define MAX_PARAM_BYTES 128

static mgw_str text_of(const char* s) {
  mgw_str v;
  v.ptr = s;
  v.len = s == NULL ? 0 : strlen(s);
  return v;
}

void echo_fail(const mgw_response_sink* out, int32_t http_status, const char* code, const char* message,
               const char* param, int retryable, int64_t retry_after_ms) {
  mgw_error_info e;
  if (out == NULL || out->callback_error == NULL) {
    return;
  }
  memset(&e, 0, sizeof e);
  e.struct_size = sizeof e;
  e.http_status = http_status;
  e.code = text_of(code);
  e.message = text_of(message);
  e.param = text_of(param);
  e.retryable = retryable ? 1 : 0;
  e.retry_after_ms = retry_after_ms;
  out->callback_error(out->host_data, &e);
}

void echo_fail_provider(const mgw_response_sink* out, const char* message, int retryable) {
  echo_fail(out, 502, MGW_ERR_PROVIDER_FAILED, message, NULL, retryable, -1);
}

static int ascii_lower(int c) {
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int name_is(mgw_str name, const char* lower) {
  size_t i;
  if (name.len != strlen(lower)) {
    return 0;
  }
  for (i = 0; i < name.len; ++i) {
    if (ascii_lower((unsigned char)name.ptr[i]) != lower[i]) {
      return 0;
    }
  }
  return 1;
}

static int contains_ci(mgw_str text, const char* lower) {
  const size_t n = strlen(lower);
  size_t i;
  size_t j;
  for (i = 0; n <= text.len && i <= text.len - n; ++i) {
    for (j = 0; j < n && ascii_lower((unsigned char)text.ptr[i + j]) == lower[j]; ++j) {
    }
    if (j == n) {
      return 1;
    }
  }
  return 0;
}

/* A non-negative decimal number of `unit` ms ("7", "1.5"), rounded up; -1 for
 * anything else, an HTTP-date included (this plugin does not read dates). */
static int64_t parse_delay(mgw_str v, int64_t unit) {
  size_t i = 0;
  int64_t whole = 0;
  int64_t frac = 0;
  int64_t den = 1;
  while (i < v.len && v.ptr[i] == ' ') {
    ++i;
  }
  if (i >= v.len || v.ptr[i] < '0' || v.ptr[i] > '9') {
    return -1;
  }
  for (; i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9'; ++i) {
    if (whole < MAX_DELAY_MS) {
      whole = whole * 10 + (v.ptr[i] - '0');
    }
  }
  if (i < v.len && v.ptr[i] == '.') {
    for (++i; i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9'; ++i) {
      if (den < 1000000000) {
        frac = frac * 10 + (v.ptr[i] - '0');
        den *= 10;
      }
    }
  }
  while (i < v.len && v.ptr[i] == ' ') {
    ++i;
  }
  if (i != v.len) {
    return -1;
  }
  if (whole >= MAX_DELAY_MS / unit) {
    return MAX_DELAY_MS;
  }
  whole = whole * unit + (frac * unit + den - 1) / den; /* round up: too short a wait fails again */
  return whole < MAX_DELAY_MS ? whole : MAX_DELAY_MS;
}

/* retry-after-ms (OpenAI's) before Retry-After in seconds; -1 when neither. */
static int64_t retry_after_ms(const mgw_header* headers, size_t count) {
  int64_t seconds = -1;
  size_t i;
  for (i = 0; headers != NULL && i < count; ++i) {
    if (name_is(headers[i].name, "retry-after-ms")) {
      const int64_t ms = parse_delay(headers[i].value, 1);
      if (ms >= 0) {
        return ms;
      }
    } else if (name_is(headers[i].name, "retry-after") && seconds < 0) {
      seconds = parse_delay(headers[i].value, 1000);
    }
  }
  return seconds;
}

/* The fields of OpenAI's {"error": {"message", "type", "param", "code"}} (or
 * the same members at the top, as some compatible servers send them), raw.
 * A field that is absent or not a string stays empty. */
typedef struct vendor_error {
  mgw_str message;
  mgw_str type;
  mgw_str code;
  mgw_str param;
} vendor_error;

static mgw_str string_member(mgw_str object, const char* name) {
  mgw_str v;
  if (js_find(object, name, &v) && js_kind(v) == '"') {
    return v;
  }
  v.ptr = NULL;
  v.len = 0;
  return v;
}

static vendor_error read_vendor_error(mgw_str body) {
  vendor_error e;
  mgw_str inner;
  memset(&e, 0, sizeof e);
  if (!js_is_document(body)) {
    return e;
  }
  if (js_find(body, "error", &inner)) {
    if (js_kind(inner) == '"') {
      e.message = inner;
      return e;
    }
    if (js_kind(inner) == '{') {
      body = inner;
    }
  }
  e.message = string_member(body, "message");
  e.type = string_member(body, "type");
  e.code = string_member(body, "code");
  e.param = string_member(body, "param");
  return e;
}

static int is_context_length(const vendor_error* v) {
  if (js_string_is(v->code, MGW_ERR_CONTEXT_LENGTH_EXCEEDED) ||
      js_string_is(v->type, MGW_ERR_CONTEXT_LENGTH_EXCEEDED)) {
    return 1;
  }
  /* Compatible servers (vLLM, llama.cpp, ...) often say it only in words. */
  return contains_ci(v->message, "maximum context length") ||
         ((contains_ci(v->message, "context length") || contains_ci(v->message, "context window")) &&
          contains_ci(v->message, "exceed"));
}

/* The vendor's param when it looks like one (messages[0].content), else
 * empty: it is vendor text on its way to a client. */
static void safe_param(mgw_str raw, echo_buf* out) {
  size_t i;
  echo_buf decoded;
  buf_init(&decoded);
  if (js_kind(raw) == '"' && js_decode_string(raw, &decoded) && !decoded.failed && decoded.len > 0 &&
      decoded.len <= MAX_PARAM_BYTES) {
    for (i = 0; i < decoded.len; ++i) {
      const char c = decoded.data[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
            c == '.' || c == '[' || c == ']' || c == '-')) {
        break;
      }
    }
    if (i == decoded.len) {
      buf_append(out, decoded.data, decoded.len);
    }
  }
  buf_free(&decoded);
  buf_append(out, "", 1); /* NUL-terminated for echo_fail */
}

static void map_rejected(const mgw_call_context* call, int32_t status, mgw_str body,
                         const mgw_response_sink* out) {
  const vendor_error v = read_vendor_error(body);
  echo_buf param;
  echo_buf message;
  (void)call;
  buf_init(&param);
  buf_init(&message);
  safe_param(v.param, &param);
  if (is_context_length(&v)) {
    echo_fail(out, 422, MGW_ERR_CONTEXT_LENGTH_EXCEEDED, "the request exceeds the model's context length",
              param.failed || param.data[0] == '\0' ? "messages" : param.data, 0, -1);
  } else if (js_string_is(v.code, "unsupported_parameter") || js_string_is(v.code, "unsupported_value")) {
    echo_fail(out, 422, MGW_ERR_UNSUPPORTED_PARAMETER,
              "the upstream model does not support a parameter of the request",
              param.failed ? NULL : param.data, 0, -1);
  } else {
    buf_append_cstr(&message, "upstream rejected the request (HTTP ");
    buf_append_int(&message, status);
    buf_append_cstr(&message, ")");
    buf_append(&message, "", 1);
    echo_fail(out, 400, MGW_ERR_INVALID_PARAMETER,
              message.failed ? "upstream rejected the request" : message.data,
              param.failed ? NULL : param.data, 0, -1);
  }
  buf_free(&param);
  buf_free(&message);
}

void echo_map_http_error(const mgw_call_context* call, int32_t status, const mgw_header* headers,
                         size_t header_count, mgw_str body, const mgw_response_sink* out) {
  echo_buf message;
  int64_t retry_ms;
  int server_error;
  /* Rows that never look at the body come first: nothing to parse, nothing to leak. */
  if (status == 401 || status == 403) {
    echo_fail_provider(
        out,
        "the upstream provider rejected the gateway's credentials; the operator must check the "
        "provider's api_key",
        0);
    return;
  }
  buf_init(&message);
  if (status == 404) {
    buf_append_cstr(&message, "the upstream provider does not know model '");
    buf_append(&message, call->upstream_model.ptr, call->upstream_model.len);
    buf_append_cstr(&message, "'");
    buf_append(&message, "", 1);
    echo_fail_provider(out, message.failed ? "the upstream provider does not know the model" : message.data,
                       0);
    buf_free(&message);
    return;
  }
  retry_ms = retry_after_ms(headers, header_count);
  if (status == 408) {
    echo_fail(out, 504, MGW_ERR_PROVIDER_TIMEOUT, "the upstream provider timed out (HTTP 408)", NULL, 1,
              retry_ms);
  } else if (status == 400 || status == 422) {
    map_rejected(call, status, body, out);
  } else if (status == 429) {
    const vendor_error v = read_vendor_error(body);
    if (js_string_is(v.type, "insufficient_quota") || js_string_is(v.code, "insufficient_quota")) {
      echo_fail_provider(out, "the upstream provider's account is out of quota", 0);
    } else {
      buf_append_cstr(&message, "the upstream provider is rate limiting; retry ");
      if (retry_ms >= 0) {
        buf_append_cstr(&message, "after ");
        buf_append_int(&message, (retry_ms + 999) / 1000);
        buf_append_cstr(&message, (retry_ms + 999) / 1000 == 1 ? " second" : " seconds");
      } else {
        buf_append_cstr(&message, "later");
      }
      buf_append(&message, "", 1);
      echo_fail(out, 429, MGW_ERR_RATE_LIMIT_EXCEEDED,
                message.failed ? "the upstream provider is rate limiting" : message.data, NULL, 1, retry_ms);
    }
  } else {
    server_error = status >= 500 && status <= 599;
    buf_append_cstr(&message, "upstream provider returned HTTP ");
    buf_append_int(&message, status);
    buf_append(&message, "", 1);
    echo_fail(out, 502, MGW_ERR_PROVIDER_FAILED, message.failed ? "upstream provider failed" : message.data,
              NULL, server_error, server_error ? retry_ms : -1);
  }
  buf_free(&message);
}
