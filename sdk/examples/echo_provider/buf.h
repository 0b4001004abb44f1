/* A growable byte buffer. An allocation failure is sticky: every later append
 * is a no-op and `failed` stays set, so a builder checks once at the end. */
#ifndef ECHO_BUF_H
#define ECHO_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct echo_buf {
  char* data;
  size_t len;
  size_t cap;
  int failed;
} echo_buf;

void buf_init(echo_buf* b);
void buf_free(echo_buf* b);
/* Keeps the allocation, forgets the contents (and a failure). */
void buf_clear(echo_buf* b);
/* Drops the first n bytes. */
void buf_consume(echo_buf* b, size_t n);

void buf_append(echo_buf* b, const char* bytes, size_t n);
void buf_append_cstr(echo_buf* b, const char* text);
/* The bytes as a JSON string, quotes included: '"', '\' and control
 * characters escaped, everything else copied. */
void buf_append_json_string(echo_buf* b, const char* bytes, size_t n);
void buf_append_int(echo_buf* b, int64_t value);

#endif
