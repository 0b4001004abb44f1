/* The echo provider: a modelgw provider plugin for an OpenAI-compatible
 * vendor, in plain C99. This file is the ABI surface: the entry symbol, the
 * descriptor, the hook table, and the checks every hook makes before the
 * translation (request.c, response.c, stream.c) runs. */
#include "buf.h"
#include "config.h"
#include "errors.h"
#include "request.h"
#include "response.h"
#include "stream.h"

#include <modelgw/plugin.h>

#include <stdlib.h>
#include <string.h>

#define ECHO_NAME "echo"
#define ECHO_VERSION "1.0.0"

/* One configured provider: read-only after on_provider_new, so concurrent
 * calls share it without locks. */
struct mgw_provider {
  const mgw_host_api* host;
  echo_buf authorization; /* "Bearer <api_key>", NUL-terminated: a secret */
};

static mgw_str text_of(const char* s) {
  mgw_str v;
  v.ptr = s;
  v.len = strlen(s);
  return v;
}

static void say(const mgw_text_sink* sink, const char* text) {
  if (sink != NULL && sink->callback_text != NULL) {
    sink->callback_text(sink->host_data, text_of(text));
  }
}

static void log_info(const mgw_host_api* host, const char* text) {
  if (host != NULL && host->callback_log != NULL) {
    host->callback_log(host->host_data, MGW_LOG_INFO, text_of(text));
  }
}

static void destroy_provider(mgw_provider* p) {
  size_t i;
  for (i = 0; i < p->authorization.cap; ++i) {
    ((volatile char*)p->authorization.data)[i] = 0; /* the key leaves no copy in freed memory */
  }
  buf_free(&p->authorization);
  free(p);
}

static mgw_status on_provider_new(const mgw_host_api* host, mgw_str config_json, mgw_provider** out,
                                  const mgw_text_sink* error) {
  mgw_provider* p;
  echo_buf problem;
  if (out == NULL) {
    return MGW_INVALID_ARGUMENT;
  }
  *out = NULL; /* on failure the host must find no handle */
  p = (mgw_provider*)calloc(1, sizeof *p);
  if (p == NULL) {
    say(error, "the echo provider plugin ran out of memory");
    return MGW_INTERNAL;
  }
  p->host = host;
  buf_init(&p->authorization);
  buf_init(&problem);
  if (!echo_read_config(config_json, &p->authorization, &problem)) {
    say(error, problem.failed ? "the configuration cannot be read" : problem.data);
    buf_free(&problem);
    destroy_provider(p);
    return MGW_INVALID_ARGUMENT;
  }
  buf_free(&problem);
  log_info(host,
           "echo provider ready: requests go to POST {base_url}/chat/completions with the configured key");
  *out = p;
  return MGW_OK;
}

static void on_provider_destroy(mgw_provider* provider) {
  if (provider != NULL) {
    destroy_provider(provider);
  }
}

static mgw_status on_build_request(mgw_provider* provider, const mgw_call_context* call, mgw_str request_json,
                                   const mgw_request_sink* out, const mgw_response_sink* error) {
  if (provider == NULL || call == NULL || out == NULL) {
    return MGW_INVALID_ARGUMENT;
  }
  return echo_build_request(provider->authorization.data, call, request_json, out, error);
}

static mgw_status on_parse_response(mgw_provider* provider, const mgw_call_context* call, int32_t http_status,
                                    const mgw_header* headers, size_t header_count, mgw_str body,
                                    const mgw_response_sink* out) {
  if (provider == NULL || call == NULL || out == NULL) {
    return MGW_INVALID_ARGUMENT;
  }
  /* A vendor failure is a translation like any other: it goes to
   * callback_error and the hook still returns MGW_OK. */
  echo_parse_response(call, http_status, headers, header_count, body, out);
  return MGW_OK;
}

static mgw_status on_stream_new(mgw_provider* provider, const mgw_call_context* call,
                                mgw_provider_stream** out) {
  if (out == NULL) {
    return MGW_INVALID_ARGUMENT;
  }
  *out = NULL;
  if (provider == NULL || call == NULL) {
    return MGW_INVALID_ARGUMENT;
  }
  *out = echo_stream_new(call);
  return *out == NULL ? MGW_INTERNAL : MGW_OK;
}

static mgw_status on_stream_data(mgw_provider_stream* stream, mgw_str bytes, const mgw_response_sink* out) {
  if (stream == NULL || out == NULL) {
    return MGW_INVALID_ARGUMENT;
  }
  echo_stream_data(stream, bytes, out);
  return MGW_OK;
}

static mgw_status on_stream_end(mgw_provider_stream* stream, const mgw_response_sink* out) {
  if (stream == NULL || out == NULL) {
    return MGW_INVALID_ARGUMENT;
  }
  echo_stream_end(stream, out);
  return MGW_OK;
}

static void on_stream_destroy(mgw_provider_stream* stream) {
  echo_stream_destroy(stream);
}

static const mgw_provider_hooks kHooks = {
    .struct_size = sizeof(mgw_provider_hooks),
    .on_provider_new = on_provider_new,
    .on_provider_destroy = on_provider_destroy,
    .on_build_request = on_build_request,
    .on_parse_response = on_parse_response,
    .on_stream_new = on_stream_new,
    .on_stream_data = on_stream_data,
    .on_stream_end = on_stream_end,
    .on_stream_destroy = on_stream_destroy,
};

static const mgw_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(mgw_plugin_descriptor),
    .abi_major = MGW_ABI_MAJOR,
    .abi_minor = MGW_ABI_MINOR,
    .kind = MGW_KIND_PROVIDER,
    .name = ECHO_NAME,
    .version = ECHO_VERSION,
    .hooks = &kHooks,
};

/* The one exported symbol (exports.map keeps every other one local). */
__attribute__((visibility("default"))) const mgw_plugin_descriptor* modelgw_plugin_entry(
    const mgw_host_api* host);

const mgw_plugin_descriptor* modelgw_plugin_entry(const mgw_host_api* host) {
  /* Another major version lays out its structs differently: refuse it. */
  if (host == NULL || host->abi_major != MGW_ABI_MAJOR) {
    return NULL;
  }
  return &kDescriptor;
}
