/* Just enough JSON for this plugin: walk an object's members, skip any value,
 * compare a key, decode a string, read a token count. Values are views into
 * the text they were found in; nothing is allocated except by
 * js_decode_string. Nesting deeper than JS_MAX_DEPTH counts as malformed, so
 * recursion is bounded whatever a vendor sends. */
#ifndef ECHO_JSON_SCAN_H
#define ECHO_JSON_SCAN_H

#include "buf.h"

#include <modelgw/plugin.h>

#include <stdint.h>

#define JS_MAX_DEPTH 64

/* Whether `text` is exactly one valid JSON value, whitespace around it allowed. */
int js_is_document(mgw_str text);

/* The first byte of a value ('{', '[', '"', 't', 'f', 'n', '-' or a digit),
 * or 0 for an empty view. */
char js_kind(mgw_str value);

/* Walks the members of an object in the order written. */
typedef struct js_object {
  const char* p;
  const char* end;
  int first;
} js_object;

/* 0 when `text` does not start (after whitespace) with '{'. */
int js_object_begin(js_object* it, mgw_str text);
/* The next member: `name` is the key's raw text between its quotes (escapes
 * as written), `value` the value's raw text. 1 for a member, 0 at the end, -1
 * when the object is malformed. */
int js_object_next(js_object* it, mgw_str* name, mgw_str* value);

/* Walks the elements of an array in order. */
typedef struct js_array {
  const char* p;
  const char* end;
  int first;
} js_array;

/* 0 when `text` does not start (after whitespace) with '['. */
int js_array_begin(js_array* it, mgw_str text);
/* The next element's raw text: 1 for an element, 0 at the end, -1 when the
 * array is malformed. */
int js_array_next(js_array* it, mgw_str* value);

/* Whether the raw key text names `name` once its escapes are decoded. */
int js_key_is(mgw_str raw_key, const char* name);

/* The value of member `name` of `object`: 1 found, 0 absent or malformed. */
int js_find(mgw_str object, const char* name, mgw_str* value);

/* Whether a string value (quotes included) is exactly `text`, written
 * without escapes. */
int js_string_is(mgw_str value, const char* text);

/* Appends the decoded (UTF-8) contents of a string value, quotes included in
 * `value`; 0 when it is not a valid string. */
int js_decode_string(mgw_str value, echo_buf* out);

/* A token count: a non-negative integer (a fraction is dropped), saturating
 * at INT64_MAX. 0 when the value is anything else. */
int js_read_count(mgw_str value, int64_t* out);

#endif
