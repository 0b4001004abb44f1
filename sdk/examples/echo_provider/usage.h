/* Token counts: read from OpenAI's "usage" object, written back as one. */
#ifndef ECHO_USAGE_H
#define ECHO_USAGE_H

#include "buf.h"

#include <modelgw/plugin.h>

/* The counts in `usage_object` (len 0 when the vendor sent none). A count the
 * vendor left out is 0, except the prompt's: the host's own count
 * (`host_prompt_tokens`) stands in for it, so a vendor that reports no usage
 * is still billed for the prompt. */
mgw_usage echo_read_usage(mgw_str usage_object, int64_t host_prompt_tokens);

/* Bytes of text the model generated in a "choices" array: the "content" of
 * each choice's `member` ("message" in a response, "delta" in a chunk), as
 * written. For an estimate when the vendor reports no usage. */
size_t echo_generated_bytes(mgw_str choices, const char* member);

/* The vendor reported nothing: the prompt as the host counted it (0 when it
 * did not count; the host then counts for its own records) and about four
 * bytes of generated text per token, as the gateway's own plugins estimate. */
mgw_usage echo_estimate_usage(int64_t host_prompt_tokens, size_t generated_bytes);

/* {"prompt_tokens":P,"completion_tokens":C,"total_tokens":T}, plus
 * "prompt_tokens_details" when part of the prompt came from the cache. */
void echo_append_usage_json(echo_buf* out, const mgw_usage* usage);

#endif
