/* A complete vendor answer (a non-streamed call, or any non-2xx) made the
 * client's: an OpenAI chat.completion with the alias as model, or an error. */
#ifndef ECHO_RESPONSE_H
#define ECHO_RESPONSE_H

#include <modelgw/plugin.h>

void echo_parse_response(const mgw_call_context* call, int32_t http_status, const mgw_header* headers,
                         size_t header_count, mgw_str body, const mgw_response_sink* out);

#endif
