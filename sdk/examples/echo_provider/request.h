/* The vendor's request: the client's OpenAI body, forwarded to
 * POST /chat/completions with the catalog's model and the vendor's key. */
#ifndef ECHO_REQUEST_H
#define ECHO_REQUEST_H

#include <modelgw/plugin.h>

/* `authorization` is the whole Authorization value ("Bearer <key>"). */
mgw_status echo_build_request(const char* authorization, const mgw_call_context* call, mgw_str request_json,
                              const mgw_request_sink* out, const mgw_response_sink* error);

#endif
