/* A streamed vendor answer: OpenAI's Server-Sent Events, decoded from bytes
 * split anywhere, re-emitted as the client's chat.completion.chunk objects. */
#ifndef ECHO_STREAM_H
#define ECHO_STREAM_H

#include <modelgw/plugin.h>

/* NULL when out of memory. Copies what it keeps of `call`. */
mgw_provider_stream* echo_stream_new(const mgw_call_context* call);
void echo_stream_data(mgw_provider_stream* stream, mgw_str bytes, const mgw_response_sink* out);
void echo_stream_end(mgw_provider_stream* stream, const mgw_response_sink* out);
void echo_stream_destroy(mgw_provider_stream* stream);

#endif
