#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(echo_buf* b) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->failed = 0;
}

void buf_free(echo_buf* b) {
  free(b->data);
  buf_init(b);
}

void buf_clear(echo_buf* b) {
  b->len = 0;
  b->failed = 0;
}

void buf_consume(echo_buf* b, size_t n) {
  if (n >= b->len) {
    b->len = 0;
    return;
  }
  memmove(b->data, b->data + n, b->len - n);
  b->len -= n;
}

/* Room for `extra` more bytes; 0 (and `failed` set) when there is none. */
static int reserve(echo_buf* b, size_t extra) {
  size_t want;
  char* grown;
  if (b->failed) {
    return 0;
  }
  if (extra <= b->cap - b->len) {
    return 1;
  }
  if (extra > (size_t)-1 / 2 - b->len) {
    b->failed = 1;
    return 0;
  }
  want = b->cap < 64 ? 64 : b->cap;
  while (want - b->len < extra) {
    want *= 2;
  }
  grown = (char*)realloc(b->data, want);
  if (grown == NULL) {
    b->failed = 1;
    return 0;
  }
  b->data = grown;
  b->cap = want;
  return 1;
}

void buf_append(echo_buf* b, const char* bytes, size_t n) {
  if (n == 0 || !reserve(b, n)) {
    return;
  }
  memcpy(b->data + b->len, bytes, n);
  b->len += n;
}

void buf_append_cstr(echo_buf* b, const char* text) {
  buf_append(b, text, strlen(text));
}

void buf_append_json_string(echo_buf* b, const char* bytes, size_t n) {
  static const char hex[] = "0123456789abcdef";
  size_t i;
  buf_append(b, "\"", 1);
  for (i = 0; i < n; ++i) {
    const unsigned char c = (unsigned char)bytes[i];
    if (c == '"' || c == '\\') {
      char pair[2];
      pair[0] = '\\';
      pair[1] = (char)c;
      buf_append(b, pair, 2);
    } else if (c < 0x20) {
      char esc[6] = {'\\', 'u', '0', '0', 0, 0};
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 0xf];
      buf_append(b, esc, sizeof esc);
    } else {
      buf_append(b, (const char*)&bytes[i], 1);
    }
  }
  buf_append(b, "\"", 1);
}

void buf_append_int(echo_buf* b, int64_t value) {
  char text[24];
  const int n = snprintf(text, sizeof text, "%lld", (long long)value);
  if (n > 0) {
    buf_append(b, text, (size_t)n);
  }
}
