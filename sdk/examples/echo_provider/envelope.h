/* The vendor's OpenAI objects (chat.completion, chat.completion.chunk) made
 * the client's: "model" is the alias the client asked for, "request_id" is
 * left to the host, which writes its own. Every other member is copied as the
 * vendor wrote it. */
#ifndef ECHO_ENVELOPE_H
#define ECHO_ENVELOPE_H

#include "buf.h"

#include <modelgw/plugin.h>

/* What echo_rewrite_object found in "choices". */
#define ECHO_CHOICES_NONE (-1) /* absent, or not an array */
#define ECHO_CHOICES_EMPTY 0
#define ECHO_CHOICES_SOME 1

/* Appends '{' and the members of `object` with "model" set to `alias` and
 * without "request_id", leaving the object open so the caller may add members
 * before the closing '}'. A "usage" object is copied when `keep_usage` is set;
 * any other "usage" member is dropped. Sets `*usage` to the vendor's usage
 * object (len 0 when none) and `*choices` to ECHO_CHOICES_*. Returns 0 when
 * `object` is not a JSON object. */
int echo_rewrite_object(mgw_str object, mgw_str alias, int keep_usage, echo_buf* out, mgw_str* usage,
                        int* choices);

/* Whether `object` carries a non-null "error" member (a failure dressed as a
 * success or as a stream event). */
int echo_has_error(mgw_str object);

#endif
