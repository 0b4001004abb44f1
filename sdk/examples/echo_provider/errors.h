/* Failures in the gateway's terms: the spec's error codes (MGW_ERR_* in
 * plugin.h) with the status the client sees, and the mapping of the vendor's
 * HTTP errors onto them. */
#ifndef ECHO_ERRORS_H
#define ECHO_ERRORS_H

#include <modelgw/plugin.h>

/* Reports that the plugin itself could not go on (out of memory): a 500 the
 * gateway may retry. */
#define ECHO_OUT_OF_MEMORY "the echo provider plugin ran out of memory"

/* Reports one failure through the sink. `param` may be NULL;
 * `retry_after_ms` is -1 when the vendor gave no delay. */
void echo_fail(const mgw_response_sink* out, int32_t http_status, const char* code, const char* message,
               const char* param, int retryable, int64_t retry_after_ms);

/* A 502 provider_failed: the vendor answered in a way no row below covers. */
void echo_fail_provider(const mgw_response_sink* out, const char* message, int retryable);

/* A non-2xx vendor answer, mapped as the gateway's openai plugin maps
 * OpenAI's. Messages are fixed texts: a vendor's own message can echo the
 * key (OpenAI's 401 does), so none is passed on. */
void echo_map_http_error(const mgw_call_context* call, int32_t http_status, const mgw_header* headers,
                         size_t header_count, mgw_str body, const mgw_response_sink* out);

#endif
