#include "json_scan.h"

#include <string.h>

static const char* skip_ws(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) {
    ++p;
  }
  return p;
}

static int is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* p at the opening quote; returns the byte after the closing quote. */
static const char* string_end(const char* p, const char* end) {
  ++p;
  while (p < end) {
    const unsigned char c = (unsigned char)*p;
    if (c == '"') {
      return p + 1;
    }
    if (c < 0x20) {
      return NULL;
    }
    if (c == '\\') {
      if (end - p < 2) {
        return NULL;
      }
      switch (p[1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
          p += 2;
          break;
        case 'u':
          if (end - p < 6 || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]) || !is_hex(p[5])) {
            return NULL;
          }
          p += 6;
          break;
        default:
          return NULL;
      }
      continue;
    }
    ++p;
  }
  return NULL;
}

static const char* digits_end(const char* p, const char* end) {
  const char* start = p;
  while (p < end && is_digit(*p)) {
    ++p;
  }
  return p == start ? NULL : p;
}

static const char* number_end(const char* p, const char* end) {
  if (*p == '-') {
    ++p;
  }
  if (p < end && *p == '0') {
    ++p;
  } else if ((p = digits_end(p, end)) == NULL) {
    return NULL;
  }
  if (p < end && *p == '.' && (p = digits_end(p + 1, end)) == NULL) {
    return NULL;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    ++p;
    if (p < end && (*p == '+' || *p == '-')) {
      ++p;
    }
    p = digits_end(p, end);
  }
  return p;
}

static const char* literal_end(const char* p, const char* end, const char* word) {
  const size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

static const char* value_end(const char* p, const char* end, int depth);

/* p at '{' or '['. */
static const char* container_end(const char* p, const char* end, int depth) {
  const char close = *p == '{' ? '}' : ']';
  const int object = *p == '{';
  if (depth >= JS_MAX_DEPTH) {
    return NULL;
  }
  p = skip_ws(p + 1, end);
  if (p < end && *p == close) {
    return p + 1;
  }
  for (;;) {
    if (object) {
      if (p >= end || *p != '"' || (p = string_end(p, end)) == NULL) {
        return NULL;
      }
      p = skip_ws(p, end);
      if (p >= end || *p != ':') {
        return NULL;
      }
      ++p;
    }
    if ((p = value_end(p, end, depth + 1)) == NULL) {
      return NULL;
    }
    p = skip_ws(p, end);
    if (p >= end) {
      return NULL;
    }
    if (*p == close) {
      return p + 1;
    }
    if (*p != ',') {
      return NULL;
    }
    p = skip_ws(p + 1, end);
  }
}

static const char* value_end(const char* p, const char* end, int depth) {
  p = skip_ws(p, end);
  if (p >= end) {
    return NULL;
  }
  switch (*p) {
    case '{':
    case '[':
      return container_end(p, end, depth);
    case '"':
      return string_end(p, end);
    case 't':
      return literal_end(p, end, "true");
    case 'f':
      return literal_end(p, end, "false");
    case 'n':
      return literal_end(p, end, "null");
    default:
      return *p == '-' || is_digit(*p) ? number_end(p, end) : NULL;
  }
}

int js_is_document(mgw_str text) {
  const char* end = text.ptr + text.len;
  const char* p;
  if (text.ptr == NULL) {
    return 0;
  }
  p = value_end(text.ptr, end, 0);
  return p != NULL && skip_ws(p, end) == end;
}

char js_kind(mgw_str value) {
  return value.len == 0 || value.ptr == NULL ? 0 : value.ptr[0];
}

int js_object_begin(js_object* it, mgw_str text) {
  const char* end = text.ptr + text.len;
  const char* p = text.ptr == NULL ? NULL : skip_ws(text.ptr, end);
  if (p == NULL || p >= end || *p != '{') {
    return 0;
  }
  it->p = p + 1;
  it->end = end;
  it->first = 1;
  return 1;
}

int js_object_next(js_object* it, mgw_str* name, mgw_str* value) {
  const char* p = skip_ws(it->p, it->end);
  const char* key_end;
  const char* v;
  if (p >= it->end) {
    return -1;
  }
  if (*p == '}') {
    it->p = p; /* stays at the end on later calls */
    return 0;
  }
  if (!it->first) {
    if (*p != ',') {
      return -1;
    }
    p = skip_ws(p + 1, it->end);
  }
  if (p >= it->end || *p != '"' || (key_end = string_end(p, it->end)) == NULL) {
    return -1;
  }
  name->ptr = p + 1;
  name->len = (size_t)(key_end - p - 2);
  p = skip_ws(key_end, it->end);
  if (p >= it->end || *p != ':') {
    return -1;
  }
  v = skip_ws(p + 1, it->end);
  /* Members are one level below the object being walked. */
  if ((p = value_end(v, it->end, 1)) == NULL) {
    return -1;
  }
  value->ptr = v;
  value->len = (size_t)(p - v);
  it->p = p;
  it->first = 0;
  return 1;
}

int js_array_begin(js_array* it, mgw_str text) {
  const char* end = text.ptr + text.len;
  const char* p = text.ptr == NULL ? NULL : skip_ws(text.ptr, end);
  if (p == NULL || p >= end || *p != '[') {
    return 0;
  }
  it->p = p + 1;
  it->end = end;
  it->first = 1;
  return 1;
}

int js_array_next(js_array* it, mgw_str* value) {
  const char* p = skip_ws(it->p, it->end);
  const char* v;
  if (p >= it->end) {
    return -1;
  }
  if (*p == ']') {
    it->p = p;
    return 0;
  }
  if (!it->first) {
    if (*p != ',') {
      return -1;
    }
    p = skip_ws(p + 1, it->end);
  }
  v = p;
  if ((p = value_end(v, it->end, 1)) == NULL) {
    return -1;
  }
  value->ptr = v;
  value->len = (size_t)(p - v);
  it->p = p;
  it->first = 0;
  return 1;
}

static unsigned hex4(const char* p) {
  unsigned v = 0;
  int i;
  for (i = 0; i < 4; ++i) {
    const char c = p[i];
    v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

static void append_utf8(echo_buf* out, unsigned cp) {
  char b[4];
  if (cp < 0x80) {
    b[0] = (char)cp;
    buf_append(out, b, 1);
  } else if (cp < 0x800) {
    b[0] = (char)(0xc0 | (cp >> 6));
    b[1] = (char)(0x80 | (cp & 0x3f));
    buf_append(out, b, 2);
  } else if (cp < 0x10000) {
    b[0] = (char)(0xe0 | (cp >> 12));
    b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    b[2] = (char)(0x80 | (cp & 0x3f));
    buf_append(out, b, 3);
  } else {
    b[0] = (char)(0xf0 | (cp >> 18));
    b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (char)(0x80 | (cp & 0x3f));
    buf_append(out, b, 4);
  }
}

/* Decodes the text between a string's quotes. Checks every escape itself,
 * so any bytes are safe to pass; 0 on a malformed escape. */
static int decode_body(const char* p, const char* end, echo_buf* out) {
  while (p < end) {
    const char* run = p;
    unsigned cp;
    while (p < end && *p != '\\') {
      ++p;
    }
    buf_append(out, run, (size_t)(p - run));
    if (p >= end) {
      break;
    }
    if (end - p < 2) {
      return 0;
    }
    switch (p[1]) {
      case 'b':
        buf_append(out, "\b", 1);
        break;
      case 'f':
        buf_append(out, "\f", 1);
        break;
      case 'n':
        buf_append(out, "\n", 1);
        break;
      case 'r':
        buf_append(out, "\r", 1);
        break;
      case 't':
        buf_append(out, "\t", 1);
        break;
      case '"':
      case '\\':
      case '/':
        buf_append(out, p + 1, 1);
        break;
      case 'u':
        if (end - p < 6 || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]) || !is_hex(p[5])) {
          return 0;
        }
        cp = hex4(p + 2);
        if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 12 && p[6] == '\\' && p[7] == 'u' && is_hex(p[8]) &&
            is_hex(p[9]) && is_hex(p[10]) && is_hex(p[11])) {
          const unsigned low = hex4(p + 8);
          if (low >= 0xdc00 && low <= 0xdfff) {
            append_utf8(out, 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00));
            p += 12;
            continue;
          }
        }
        /* A lone surrogate is not a character: U+FFFD stands for it. */
        append_utf8(out, cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
        p += 6;
        continue;
      default:
        return 0;
    }
    p += 2;
  }
  return 1;
}

int js_key_is(mgw_str raw_key, const char* name) {
  const size_t n = strlen(name);
  echo_buf decoded;
  int same;
  if (raw_key.len == 0 || memchr(raw_key.ptr, '\\', raw_key.len) == NULL) {
    return raw_key.len == n && (n == 0 || memcmp(raw_key.ptr, name, n) == 0);
  }
  /* A key written with escapes ("mod\u0065l") names the same member as the
   * plain one, so it must not slip past a check for "model". */
  buf_init(&decoded);
  same = decode_body(raw_key.ptr, raw_key.ptr + raw_key.len, &decoded) && !decoded.failed &&
         decoded.len == n && memcmp(decoded.data, name, n) == 0;
  buf_free(&decoded);
  return same;
}

int js_find(mgw_str object, const char* name, mgw_str* value) {
  js_object it;
  mgw_str key;
  mgw_str v;
  if (!js_object_begin(&it, object)) {
    return 0;
  }
  while (js_object_next(&it, &key, &v) == 1) {
    if (js_key_is(key, name)) {
      *value = v;
      return 1;
    }
  }
  return 0;
}

int js_string_is(mgw_str value, const char* text) {
  const size_t n = strlen(text);
  return value.len == n + 2 && value.ptr[0] == '"' && memcmp(value.ptr + 1, text, n) == 0 &&
         value.ptr[n + 1] == '"';
}

int js_decode_string(mgw_str value, echo_buf* out) {
  const char* end = value.ptr + value.len;
  if (value.len < 2 || value.ptr[0] != '"' || string_end(value.ptr, end) != end) {
    return 0;
  }
  return decode_body(value.ptr + 1, end - 1, out);
}

int js_read_count(mgw_str value, int64_t* out) {
  const char* p = value.ptr;
  const char* end = value.ptr + value.len;
  int64_t n = 0;
  if (value.len == 0 || !is_digit(*p) || number_end(p, end) != end) {
    return 0;
  }
  for (; p < end && is_digit(*p); ++p) {
    const int d = *p - '0';
    n = n > (INT64_MAX - d) / 10 ? INT64_MAX : n * 10 + d;
  }
  if (p < end && *p != '.') {
    return 0; /* an exponent: not a count any vendor sends */
  }
  *out = n;
  return 1;
}
