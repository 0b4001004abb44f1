/*
 * modelgw plugin ABI, version 1 (sdk/ABI_POLICY.md says what each version may change).
 *
 * This is the only header a plugin needs. It is plain C99 and uses nothing but
 * <stddef.h> and <stdint.h>, so a plugin can be written in C, C++, Rust or Go.
 *
 * Naming tells who calls whom:
 *   mgw_*            types;
 *   hooks: on_*      functions the PLUGIN exports through its hook table and the HOST calls;
 *   callback_*       functions the HOST offers (host table, sinks) and the PLUGIN calls.
 *
 * Memory rules (the whole of them):
 *   1. Every mgw_str handed across the boundary is BORROWED: it is valid only for
 *      the duration of the call it is passed to (or, for a sink callback, of that
 *      callback). Whoever wants to keep the bytes copies them.
 *   2. Results travel through sinks: the host passes a sink, the plugin calls its
 *      callbacks, the host copies what it keeps. So no heap block ever crosses the
 *      boundary and neither side ever frees the other's memory.
 *   3. Opaque handles (mgw_provider, mgw_provider_stream, mgw_storage, mgw_pii,
 *      mgw_pii_scope) are allocated by the plugin in their on_*_new hook and freed
 *      by the plugin in the matching on_*_destroy hook, which the host calls exactly
 *      once for each handle it received.
 *   4. Strings inside mgw_plugin_descriptor and the hook tables are static: they
 *      live as long as the shared object stays loaded.
 *   5. A hook that creates a handle (on_provider_new, on_stream_new, on_pii_new,
 *      on_pii_scope_new, on_storage_open) finds *out set to NULL by the host. It
 *      sets *out only when it returns MGW_OK, and then to a non-NULL handle. On
 *      failure it leaves *out NULL; a handle it leaves there anyway is passed to
 *      the matching destroy hook at once (the host never leaks it), so it must be
 *      a valid handle. MGW_OK with *out still NULL is a broken plugin: the host
 *      treats it as a failure (at start-up: refuses to start; on a request: 500).
 *   Strings are {ptr, len} and never assumed NUL-terminated. Text is UTF-8.
 *
 * Host callbacks never throw, longjmp or unwind:
 *   Every function the host offers (host-table callbacks, every sink's
 *   callback_*) returns normally, whatever happens inside it. When the host
 *   fails while taking what a plugin passes (it runs out of memory, the value
 *   breaks a rule below), it records the failure, turns the rest of that hook
 *   call's sink callbacks into no-ops, and after the hook returns reports the
 *   failure itself (a 500 naming the plugin, or a storage error), whatever the
 *   hook returned. So a plugin written in C, Rust or Go never sees a C++
 *   exception, and needs no handler around host calls. In the other direction
 *   the same holds: a hook must never let an exception, a panic or a longjmp
 *   escape into the host.
 *
 * Versioning:
 *   The host calls the entry symbol with its host table, which carries the host's
 *   ABI version. The plugin answers with a descriptor carrying its own. The host
 *   refuses a plugin whose major version differs from its own, naming the file and
 *   both versions. Within a major version the ABI only grows: fields are added at
 *   the end of structs, never moved, retyped or removed; every growable struct
 *   starts with struct_size, and a reader uses a field only if struct_size covers
 *   it (see MGW_HAS_FIELD). Minor versions may differ in either direction.
 *   The layout of each minor is frozen: MGW_<TYPE>_SIZE_1_<n> (end of this
 *   header) is the size of a struct or hook table as minor n defined it, and
 *   the loader compares what a plugin passes with the 1.0 size, never with its
 *   own sizeof, so every 1.x plugin loads into every 1.y host. The descriptor's
 *   first eight bytes (struct_size, abi_major, abi_minor) never move: the host
 *   reads abi_major before it trusts any size.
 *
 * Threading:
 *   Stated on each hook. In short: instance hooks (provider, storage, pii) may be
 *   called concurrently from many host threads and must be thread-safe; a stream
 *   or pii scope is used by one thread at a time; sink callbacks may only be called
 *   on the calling thread, during the hook call they were passed to: a sink is
 *   dead once its hook returns. Host-table callbacks may be called from any thread
 *   at any time while the plugin is loaded. Storage hooks may block (disk, network):
 *   the host never calls them from a thread that serves client I/O. Provider and
 *   PII hooks run on the host's I/O threads and must not block.
 */
#ifndef MODELGW_PLUGIN_H
#define MODELGW_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MGW_ABI_MAJOR 1
#define MGW_ABI_MINOR 12

/* Name of the one symbol a plugin exports (type mgw_plugin_entry_fn). */
#define MGW_ENTRY_SYMBOL "modelgw_plugin_entry"

/* The size of TYPE up to and including FIELD: a struct that ends at FIELD. */
#define MGW_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))

/* True when a struct that starts with struct_size is large enough to hold FIELD.
 * Needed only for fields a later minor added (marked "ABI 1.n" below): every
 * field of ABI 1.0 is always there. */
#define MGW_HAS_FIELD(ptr, type, field) ((ptr)->struct_size >= MGW_SIZE_THROUGH(type, field))

/* ------------------------------------------------------------------------ */
/* Basic types                                                              */
/* ------------------------------------------------------------------------ */

/* A byte string. OWNERSHIP: borrowed; valid only during the call it appears in. */
typedef struct mgw_str {
  const char* ptr; /* may be NULL when len == 0 */
  size_t len;
} mgw_str;

/* Status returned by every hook that can fail. A fixed set: never extended with
 * new meanings for old numbers. */
typedef int32_t mgw_status;
#define MGW_OK 0
#define MGW_NOT_FOUND 1        /* the looked-up thing does not exist */
#define MGW_INVALID_ARGUMENT 2 /* input rejected; details went to a sink */
#define MGW_UNSUPPORTED 3      /* the plugin does not implement this */
#define MGW_CONFLICT 4         /* unique constraint, e.g. a name taken */
#define MGW_UNAVAILABLE 5      /* a backend could not be reached; may retry */
#define MGW_INTERNAL 6         /* a bug or an unexpected failure */

/* Error codes a plugin puts in mgw_error_info.code: the spec's (7.3) and the
 * gateway's own. The client sees the code as given; a code outside this list
 * reaches it too, but has no defined meaning to a client. */
/* 502: the vendor failed or answered garbage */
#define MGW_ERR_PROVIDER_FAILED "provider_failed"
/* 504: the vendor timed out */
#define MGW_ERR_PROVIDER_TIMEOUT "provider_timeout"
/* 429: the vendor throttled the call */
#define MGW_ERR_RATE_LIMIT_EXCEEDED "rate_limit_exceeded"
/* 422: the prompt is too long for the model */
#define MGW_ERR_CONTEXT_LENGTH_EXCEEDED "context_length_exceeded"
/* 422: the vendor cannot take `param` */
#define MGW_ERR_UNSUPPORTED_PARAMETER "unsupported_parameter"
/* 400: `param` has a value the vendor refuses */
#define MGW_ERR_INVALID_PARAMETER "invalid_parameter"
/* 422: the vendor's safety filter refused the request */
#define MGW_ERR_CONTENT_FILTER "content_filter"
/* 402: never from a plugin; the host's budgets and credits */
#define MGW_ERR_INSUFFICIENT_CREDITS "insufficient_credits"
/* 422: a PII mode's callback_reject */
#define MGW_ERR_PII_DETECTED "pii_detected"
/* 500: a bug */
#define MGW_ERR_INTERNAL "internal_error"

/* PII categories the host detects (mgw_pii_finding.category). Names hold only
 * [a-z_]; a later minor may add categories, so a mode treats an unknown one
 * like any other and reads `critical`, not the name. Critical by default:
 * payment_card, ssn, iban, secret (a tenant may change that). */
#define MGW_PII_EMAIL "email"
#define MGW_PII_PHONE "phone"
#define MGW_PII_IP_ADDRESS "ip_address"
#define MGW_PII_DATE_OF_BIRTH "date_of_birth"
#define MGW_PII_PAYMENT_CARD "payment_card"
#define MGW_PII_SSN "ssn"
#define MGW_PII_IBAN "iban"
#define MGW_PII_SECRET "secret"

/* Log levels, for callback_log. */
typedef int32_t mgw_log_level;
#define MGW_LOG_TRACE 0
#define MGW_LOG_DEBUG 1
#define MGW_LOG_INFO 2
#define MGW_LOG_WARN 3
#define MGW_LOG_ERROR 4

/* Plugin kinds. */
typedef int32_t mgw_plugin_kind;
#define MGW_KIND_PROVIDER 1
#define MGW_KIND_PII 2
#define MGW_KIND_STORAGE 3

/* A sink for one piece of text, e.g. the reason a hook failed. Several calls
 * append. OWNERSHIP: the host owns the sink; the text passed to callback_text
 * is borrowed. THREADING: call only during the hook it was passed to. */
typedef struct mgw_text_sink {
  void* host_data;
  void (*callback_text)(void* host_data, mgw_str text);
} mgw_text_sink;

/* ------------------------------------------------------------------------ */
/* The host table                                                           */
/* ------------------------------------------------------------------------ */

/* Services the host offers every plugin. Passed to the entry symbol and to every
 * on_*_new hook. OWNERSHIP: host-owned; valid until the plugin is unloaded.
 * THREADING: every callback may be called from any thread. */
typedef struct mgw_host_api {
  uint32_t struct_size;
  uint16_t abi_major;
  uint16_t abi_minor;
  void* host_data; /* pass back to every callback below */
  /* Non-zero when a message at `level` would be written. Cheap; call it before
   * building an expensive message. */
  int32_t (*callback_log_enabled)(void* host_data, mgw_log_level level);
  /* Writes one log line, attributed to this plugin. The host never logs secrets
   * on its own; the plugin must not pass any (API keys, tokens, user content). */
  void (*callback_log)(void* host_data, mgw_log_level level, mgw_str message);
  /* Wall-clock time, milliseconds since the Unix epoch. */
  int64_t (*callback_now_unix_ms)(void* host_data);
  /* Monotonic time in nanoseconds, for measuring durations. */
  int64_t (*callback_monotonic_ns)(void* host_data);
} mgw_host_api;

/* ------------------------------------------------------------------------ */
/* Entry symbol and descriptor                                              */
/* ------------------------------------------------------------------------ */

/* What a plugin says about itself. OWNERSHIP: plugin-owned, static; valid while
 * the shared object is loaded. THREADING: read by the host on its main thread.
 * The first eight bytes never move (see Versioning). */
typedef struct mgw_plugin_descriptor {
  uint32_t struct_size;
  uint16_t abi_major; /* MGW_ABI_MAJOR the plugin was built with */
  uint16_t abi_minor; /* MGW_ABI_MINOR the plugin was built with */
  mgw_plugin_kind kind;
  const char* name;    /* NUL-terminated, e.g. "openai" */
  const char* version; /* NUL-terminated plugin version, e.g. "1.0.0" */
  /* The hook table for `kind`: const mgw_provider_hooks*, const mgw_storage_hooks*
   * or const mgw_pii_hooks*. */
  const void* hooks;
} mgw_plugin_descriptor;

/* The entry symbol, exported as MGW_ENTRY_SYMBOL with C linkage. Called once, on
 * the host's main thread, right after loading. Returns the plugin's descriptor,
 * or NULL when the plugin refuses this host (it may log why through `host`).
 * The host keeps `host` valid until it unloads the plugin. */
typedef const mgw_plugin_descriptor* (*mgw_plugin_entry_fn)(const mgw_host_api* host);

/* ------------------------------------------------------------------------ */
/* Provider plugins: translators between OpenAI chat and one vendor's wire   */
/* ------------------------------------------------------------------------ */
/* A provider plugin does no I/O. The host sends the request the plugin builds,
 * and feeds the plugin the vendor's response (whole, or as stream bytes in the
 * pieces they arrived in). The plugin answers in OpenAI's shapes. */

typedef struct mgw_provider mgw_provider;               /* one configured provider */
typedef struct mgw_provider_stream mgw_provider_stream; /* one streamed response */

/* One HTTP header. OWNERSHIP: borrowed for the call it is passed to.
 * THREADING: the hook's. */
typedef struct mgw_header {
  mgw_str name;
  mgw_str value;
} mgw_header;

/* ABI 1.1. One top-level member of the client's request body, as the host's
 * parse found it: `name` is the key's text between its quotes, `value` the
 * member's raw JSON value text. Both are views into the request_json of the
 * same on_build_request call. */
typedef struct mgw_json_member {
  mgw_str name;
  mgw_str value;
} mgw_json_member;

/* Facts about the call the plugin is translating. OWNERSHIP: host-owned,
 * borrowed for the duration of the hook call (a stream copies what it needs in
 * on_stream_new). THREADING: read only on the hook's thread. */
typedef struct mgw_call_context {
  uint32_t struct_size;
  mgw_str request_id;     /* e.g. "req_..."; the host adds it to every body itself */
  mgw_str alias;          /* catalog alias being served: put it in "model" */
  mgw_str upstream_model; /* the vendor's model name from the catalog */
  int64_t created_unix;   /* seconds; use for "created" */
  int32_t stream;         /* non-zero when the client asked for SSE */
  /* The catalog's default output size for this model: the value to send when
   * the vendor requires a maximum (Anthropic's max_tokens) and the client sent
   * none. 0 when the catalog sets none. */
  int64_t default_max_tokens;
  /* The host's count of the prompt's tokens (exact BPE for OpenAI-family
   * models, a conservative estimate otherwise): for a vendor that reports no
   * usage, e.g. in a stream cut short. 0 when unknown. */
  int64_t prompt_tokens;
  /* ABI 1.1 (check with MGW_HAS_FIELD). The host's index of request_json's
   * top-level members, in the order written, so that a plugin can find, drop
   * or replace members by splicing text instead of parsing the body again.
   * Set during on_build_request (and, ABI 1.11, during on_parse_response of
   * an "embeddings" call: see below), and only when every key is distinct and
   * written without escapes; otherwise `members` is NULL and the plugin parses
   * request_json itself. The host has already checked that request_json is
   * valid JSON, an object, nested at most 64 deep.
   * OWNERSHIP: borrowed for the hook call. */
  const mgw_json_member* members;
  size_t member_count;
  /* ABI 1.10 (check with MGW_HAS_FIELD; absent means MGW_OPERATION_CHAT).
   * The API the call is in, for request_json and every answer: "chat" (OpenAI
   * chat completions, which every provider serves) or an operation the
   * provider declared in on_provider_operations (see "Native operations"
   * below). The host never sends a provider an operation it did not declare.
   * OWNERSHIP: borrowed for the hook call (a stream copies it). */
  mgw_str operation;
  /* ABI 1.11 (check with MGW_HAS_FIELD). Headers of the client's request that
   * the operation passes on to a provider serving it natively, as the client
   * sent them (for "messages": anthropic-beta); none for "chat" and
   * "responses". Names are lower case. The plugin decides whether its vendor
   * takes each; it never needs to check them for framing (the host has).
   * OWNERSHIP: borrowed for the hook call (a stream copies what it keeps). */
  const mgw_header* client_headers;
  size_t client_header_count;
} mgw_call_context;

/* ABI 1.10: the operations a call can be (mgw_call_context.operation). */
#define MGW_OPERATION_CHAT "chat"           /* OpenAI chat completions: every provider */
#define MGW_OPERATION_RESPONSES "responses" /* OpenAI's Responses API, served natively */
/* ABI 1.11 */
#define MGW_OPERATION_MESSAGES "messages"         /* Anthropic's Messages API, served natively */
#define MGW_OPERATION_EMBEDDINGS "embeddings"     /* embedding vectors (no chat form exists) */
#define MGW_OPERATION_COUNT_TOKENS "count_tokens" /* the vendor's exact count of a prompt */

/* Native operations (ABI 1.10). A provider whose vendor speaks another API of
 * the gateway's natively declares it (on_provider_operations), and the host
 * then sends it that API's calls as they are instead of translated to chat.
 * The hooks are the same; what passes through them is in the operation's own
 * shapes:
 *
 * "responses", OpenAI's Responses API (POST /v1/responses):
 *   - on_build_request: request_json is a Responses request body as the client
 *     wrote it after the gateway's stages: "model" is the catalog alias (write
 *     call->upstream_model instead), "input" is a list of items that holds the
 *     whole conversation (the gateway keeps conversation state: there is no
 *     "previous_response_id"), "store" is false, "stream" is as the client
 *     asked, and masked text is already masked. The provider's parameter table
 *     (on_provider_parameters) does not apply: only the member index does.
 *   - on_parse_response: callback_usage (prompt_tokens = input_tokens,
 *     completion_tokens = output_tokens, reasoning included,
 *     cached_prompt_tokens = input_tokens_details.cached_tokens) then
 *     callback_body with the `response` object, "model" set to the alias. A
 *     response whose status is "failed" is a failure (callback_error).
 *   - streams: callback_chunk once per event with the event's data object
 *     (it holds "type"; any "response" object in it has "model" set to the
 *     alias). The host frames it as an SSE `event:` and `data:` pair and
 *     numbers it (sequence_number). The terminal "response.completed" or
 *     "response.incomplete" event is passed after callback_usage; a
 *     "response.failed" or "error" event is a callback_error instead, and a
 *     body that ends before a terminal event is MGW_ERR_PROVIDER_FAILED.
 *
 * "messages", Anthropic's Messages API (POST /v1/messages; ABI 1.11):
 *   - on_build_request: request_json is a Messages request body as the client
 *     wrote it after the gateway's stages: "model" is the catalog alias (write
 *     call->upstream_model instead), "max_tokens" is always there (the host
 *     lowers it to what the spend hold covers), "stream" is as the client
 *     asked, content blocks the provider does not know are passed as they
 *     are (cache_control, thinking signatures), masked text is already
 *     masked. call->client_headers holds the client's anthropic-beta header,
 *     if any. The parameter table does not apply; the member index does.
 *   - on_parse_response: callback_usage (prompt_tokens = input_tokens +
 *     cache_creation_input_tokens + cache_read_input_tokens, completion_tokens
 *     = output_tokens, cached_prompt_tokens = cache_read_input_tokens,
 *     cache_write_prompt_tokens = cache_creation_input_tokens) then
 *     callback_body with the `message` object, "model" set to the alias.
 *   - streams: callback_chunk once per event with the event's data object (it
 *     holds "type"; the message in "message_start" has "model" set to the
 *     alias). The host frames it as an SSE `event:` and `data:` pair. The
 *     "message_stop" event is passed after callback_usage; an "error" event
 *     is a callback_error, whose http_status may follow the vendor's error
 *     type so that the door writes the same type back (e.g. 503 for
 *     overloaded_error, 429 for rate_limit_error), and a body that ends
 *     before "message_stop" is MGW_ERR_PROVIDER_FAILED. "ping" events may be
 *     passed or dropped.
 *   - the host adds the call's "request_id" to the whole message and to the
 *     "message_start" event's data object (not to the message inside it);
 *     every other event is relayed byte for byte, so write each one on one
 *     line (compact JSON) and never write a "request_id" yourself.
 *
 * "embeddings", OpenAI's embeddings API (POST /v1/embeddings; ABI 1.11). Only
 * catalog entries of kind "embedding" are sent it, and such an entry's
 * provider must declare it (checked at start-up):
 *   - on_build_request: request_json is {"model": alias, "input": [...],
 *     "encoding_format": "float" or "base64", and "dimensions" and "user"
 *     when the client sent them}; "input" is always an array, of strings or
 *     of token arrays (arrays of integers), of at most the entry's
 *     max_inputs items (the host splits a larger one into several calls and
 *     joins the answers). Masked text is already masked. Never streamed.
 *   - on_parse_response: call->members (and member_count) index the same
 *     request_json again, as in on_build_request, since the answer's shape
 *     depends on it ("encoding_format") and its item count must match
 *     "input"'s; NULL from a host that gives none (then read the answer as
 *     "float", its items as they come). callback_usage (prompt_tokens; when
 *     the vendor reports none, call->prompt_tokens, the host's count) then
 *     callback_body with
 *     {"object": "list", "data": [{"object": "embedding", "index": i,
 *     "embedding": ...}, ...], "model": alias, "usage": {"prompt_tokens",
 *     "total_tokens"}}, one item per input in input order, index counted
 *     from 0 in this call. "embedding" is an array of numbers written as the
 *     vendor wrote them (the host relays the text, never parses it into
 *     doubles) for "float", or a string of base64 (RFC 4648, padded) of the
 *     vector as little-endian IEEE-754 float32 for "base64".
 *
 * "count_tokens", the prompt's exact size as the vendor counts it (POST
 * /v1/messages/count_tokens; ABI 1.11). Never billed; never streamed:
 *   - on_build_request: request_json is the request as a Messages body when
 *     the provider also declared "messages", otherwise as a chat completions
 *     body; "model" is the alias. Members that are not part of the prompt
 *     (max_tokens, stream, temperature...) may be present: leave out what the
 *     vendor's counting endpoint refuses.
 *   - on_parse_response: callback_body with {"input_tokens": N}; no usage. */

/* Where a built upstream request goes. The host checks and copies everything:
 * a method that is not an RFC 9110 token, a path holding a control character,
 * a space or a non-ASCII byte, a header name that is not a token, or a header
 * value holding CR, LF, NUL or another control character (HTAB aside) fails
 * the request with a 500 naming the plugin; nothing of it reaches the wire.
 * OWNERSHIP: host-owned; the strings passed are borrowed for the callback.
 * THREADING: call only during on_build_request, on its thread. */
typedef struct mgw_request_sink {
  uint32_t struct_size; /* host-set; a callback added later is called only when this covers it */
  void* host_data;
  /* HTTP method; default "POST". */
  void (*callback_method)(void* host_data, mgw_str method);
  /* Path and query, appended to the provider's configured base_url path,
   * e.g. "/chat/completions". Required. */
  void (*callback_path)(void* host_data, mgw_str path_and_query);
  /* One request header. The framing and hop-by-hop headers are the host's:
   * Host, Content-Length, Transfer-Encoding, Connection, Keep-Alive,
   * Proxy-Connection, TE and Upgrade (any case) are dropped. */
  void (*callback_header)(void* host_data, mgw_str name, mgw_str value);
  /* The request body. */
  void (*callback_body)(void* host_data, mgw_str body);
} mgw_request_sink;

/* Token counts of one response. OWNERSHIP: plugin-owned, borrowed for
 * callback_usage. THREADING: passed on the hook's thread. */
typedef struct mgw_usage {
  uint32_t struct_size; /* plugin-set: sizeof(mgw_usage) */
  int64_t prompt_tokens;
  int64_t completion_tokens;
  int64_t total_tokens;
  /* ABI 1.2 (check with MGW_HAS_FIELD). Of prompt_tokens, how many the vendor
   * read from its prompt cache (billed at the cached-input price); 0 when none
   * or not reported. */
  int64_t cached_prompt_tokens;
  /* ABI 1.11 (check with MGW_HAS_FIELD). Of prompt_tokens, how many the
   * vendor wrote into its prompt cache (Anthropic's cache_creation_input_tokens,
   * billed at the cache-write price); 0 when none or not reported. */
  int64_t cache_write_prompt_tokens;
} mgw_usage;

/* A failure in the spec's terms. OWNERSHIP: plugin-owned, borrowed during
 * callback_error. THREADING: passed on the hook's thread. A struct_size below
 * the 1.0 size is a broken plugin (500 naming it). */
typedef struct mgw_error_info {
  uint32_t struct_size;
  int32_t http_status;    /* status the client gets, 400..599; anything else becomes 502 */
  mgw_str code;           /* an MGW_ERR_* code, e.g. MGW_ERR_PROVIDER_FAILED */
  mgw_str message;        /* for a person; never a secret, never raw vendor HTML */
  mgw_str param;          /* offending parameter, or len 0 for none */
  int32_t retryable;      /* non-zero when the same call may succeed later */
  int64_t retry_after_ms; /* vendor's Retry-After in ms, or -1 when absent */
} mgw_error_info;

/* Where a translated response goes. The host copies what it keeps.
 * Rules of what goes through it:
 *   - bodies and chunks are JSON objects in OpenAI's shapes with "model" set
 *     to the call's alias; the host adds "request_id" as the first member, so
 *     the plugin never writes one;
 *   - the plugin never sends "[DONE]": the host ends a stream itself;
 *   - a stream's usage goes to callback_usage and, for the client, into a
 *     final chunk {"id","object":"chat.completion.chunk","created","model",
 *     "choices":[],"usage":{"prompt_tokens","completion_tokens","total_tokens"}}
 *     emitted after the last choice chunk;
 *   - after callback_error nothing else is emitted (the host ignores it).
 * OWNERSHIP: host-owned; the strings passed are borrowed for the callback.
 * THREADING: call only during the hook it was passed to, on its thread. */
typedef struct mgw_response_sink {
  uint32_t struct_size; /* host-set; a callback added later is called only when this covers it */
  void* host_data;
  /* The complete OpenAI `chat.completion` object (non-streamed responses). */
  void (*callback_body)(void* host_data, mgw_str json_object);
  /* One OpenAI `chat.completion.chunk` object (streams); the host frames it as
   * an SSE `data:` event and sends it at once. */
  void (*callback_chunk)(void* host_data, mgw_str json_object);
  /* Token counts; call once per response, the last call wins. */
  void (*callback_usage)(void* host_data, const mgw_usage* usage);
  /* The response is a failure. */
  void (*callback_error)(void* host_data, const mgw_error_info* error);
} mgw_response_sink;

/* ABI 1.4: one request parameter of OpenAI's chat API and what a provider
 * does with it, so the host can check a request before it builds one: a
 * parameter the provider maps is admitted (within its range); one it marks
 * dropped is removed from the body and named in the X-Dropped-Params header;
 * one it marks refused, or never declares, is refused with 422
 * unsupported_parameter. The catalog may narrow what a model admits, never
 * widen it. The members the gateway itself reads ("model", "messages",
 * "stream", "stream_options") are not parameters.
 * OWNERSHIP: plugin-owned, borrowed for callback_parameter (strings are
 * NUL-terminated). THREADING: passed on the main thread. */
#define MGW_PARAM_MAPPED 1  /* translated into the vendor's request at `target` */
#define MGW_PARAM_DROPPED 2 /* the vendor has no equivalent; harmless to leave out */
#define MGW_PARAM_REFUSED 3 /* the vendor has no equivalent; leaving it out would change the answer */
typedef struct mgw_param_spec {
  uint32_t struct_size;
  int32_t handling;   /* MGW_PARAM_* */
  const char* name;   /* the request member, e.g. "temperature" */
  const char* target; /* where it goes in the vendor's request, e.g. "generationConfig.temperature"; "" unless
                         mapped */
  /* For a number: the values the vendor takes, inclusive. min > max: any
   * number (the host still applies OpenAI's own range). */
  double min;
  double max;
} mgw_param_spec;

/* Where a provider's parameters go. OWNERSHIP: host-owned. THREADING: call
 * only during on_provider_parameters, on its thread. */
typedef struct mgw_param_sink {
  uint32_t struct_size; /* host-set; a callback added later is called only when this covers it */
  void* host_data;
  void (*callback_parameter)(void* host_data, const mgw_param_spec* param);
} mgw_param_sink;

/* OWNERSHIP: plugin-owned, static. THREADING: every hook states its own. */
typedef struct mgw_provider_hooks {
  uint32_t struct_size;

  /* Creates a provider from its configuration block (the YAML node under
   * providers.<name>, as a JSON object, ${ENV} already substituted; it holds
   * secrets such as api_key, which the plugin must never log or echo).
   * On failure returns non-OK and says why through `error`.
   * OWNERSHIP: *out is the plugin's, until on_provider_destroy.
   * THREADING: main thread, at start-up. */
  mgw_status (*on_provider_new)(const mgw_host_api* host, mgw_str config_json, mgw_provider** out,
                                const mgw_text_sink* error);
  /* OWNERSHIP: frees everything of the provider.
   * THREADING: main thread, at shut-down, after every call using it returned. */
  void (*on_provider_destroy)(mgw_provider* provider);

  /* Translates an OpenAI chat request into the vendor's HTTP request.
   * `request_json` is the client's body: a valid JSON object, nesting at most 64
   * deep, with string "model" and array "messages" present, and only the
   * parameters the provider maps (on_provider_parameters). A request the vendor
   * cannot take is refused: the plugin calls error->callback_error and returns
   * MGW_INVALID_ARGUMENT. OWNERSHIP: everything passed is borrowed for the call.
   * THREADING: any thread, concurrently; must not block. */
  mgw_status (*on_build_request)(mgw_provider* provider, const mgw_call_context* call, mgw_str request_json,
                                 const mgw_request_sink* out, const mgw_response_sink* error);

  /* Translates a complete vendor response: for a success calls callback_usage
   * then callback_body; for a failure (any status, including a 200 that carries
   * an error, or a body that is not what the vendor sends) calls callback_error.
   * Also used for non-2xx answers to streamed requests. `headers` holds
   * `header_count` entries. OWNERSHIP: everything passed is borrowed for the
   * call. THREADING: any thread, concurrently; must not block. */
  mgw_status (*on_parse_response)(mgw_provider* provider, const mgw_call_context* call, int32_t http_status,
                                  const mgw_header* headers, size_t header_count, mgw_str body,
                                  const mgw_response_sink* out);

  /* Starts decoding a 2xx streamed response. OWNERSHIP: `call` is borrowed
   * for this hook only: copy what the stream needs; *out is the plugin's until
   * on_stream_destroy. THREADING: any thread; must not block. */
  mgw_status (*on_stream_new)(mgw_provider* provider, const mgw_call_context* call,
                              mgw_provider_stream** out);
  /* Feeds the next bytes of the vendor's body, exactly as they arrived: an event
   * may be split across calls, and one call may hold many events. Emits zero or
   * more chunks, and usage or an error. OWNERSHIP: `bytes` is borrowed for the
   * call: keep a partial event by copying it. THREADING: one thread at a time
   * per stream (not always the same thread); must not block. */
  mgw_status (*on_stream_data)(mgw_provider_stream* stream, mgw_str bytes, const mgw_response_sink* out);
  /* The vendor closed the body. A stream that ended before the vendor's own end
   * marker is reported through callback_error (MGW_ERR_PROVIDER_FAILED).
   * THREADING: one thread at a time per stream; must not block. */
  mgw_status (*on_stream_end)(mgw_provider_stream* stream, const mgw_response_sink* out);
  /* Frees the stream; called exactly once, also when the client went away
   * before on_stream_end. THREADING: the stream's last thread. */
  void (*on_stream_destroy)(mgw_provider_stream* stream);

  /* ABI 1.4 (the host checks struct_size; a plugin without it is taken to
   * map every parameter the catalog lists). Declares the request parameters
   * this provider instance takes, one callback_parameter each; called once
   * after on_provider_new. MGW_OK, or a failure that stops start-up.
   * THREADING: main thread, at start-up. */
  mgw_status (*on_provider_parameters)(mgw_provider* provider, const mgw_param_sink* out);

  /* ABI 1.10 (the host checks struct_size; a plugin without it serves chat
   * only, and the host translates every other API to chat for it). Declares
   * the operations besides chat that this provider instance serves natively
   * (see "Native operations"), one callback_text each, e.g.
   * MGW_OPERATION_RESPONSES; none is fine. The host ignores, and logs, an
   * operation it does not know. Called once, after on_provider_parameters.
   * MGW_OK, or a failure that stops start-up.
   * OWNERSHIP: `out` is host-owned; the text passed is borrowed for the
   * callback. THREADING: main thread, at start-up. */
  mgw_status (*on_provider_operations)(mgw_provider* provider, const mgw_text_sink* out);
} mgw_provider_hooks;

/* ------------------------------------------------------------------------ */
/* PII mode plugins: decide what happens to findings in outgoing text       */
/* ------------------------------------------------------------------------ */
/* The host detects PII (categories, validated candidates, the tenant's
 * allow-list) and marks each finding critical or not per the tenant's policy;
 * a mode plugin decides, per piece of text, whether the request goes on
 * unchanged, goes on with replaced text, or is rejected, and which findings are
 * recorded. A request's pieces are applied in order within one scope, so a mode
 * can keep per-request state (e.g. the same value gets the same placeholder). */

typedef struct mgw_pii mgw_pii;             /* one configured mode */
typedef struct mgw_pii_scope mgw_pii_scope; /* the state of one request */

/* One finding. OWNERSHIP: borrowed for the call. The value itself is
 * text.text[offset, offset + length); a plugin must never log it, put it in a
 * reject reason, or keep it past on_pii_scope_destroy. The host never sends a
 * zero-length finding. Categories are the host's (sdk/README.md lists them);
 * their names hold only [a-z_] (MGW_PII_*). THREADING: the hook's. */
typedef struct mgw_pii_finding {
  mgw_str category; /* e.g. "email", "payment_card" */
  uint64_t offset;  /* byte offset in the text */
  uint64_t length;  /* byte length in the text, > 0 */
  int32_t critical; /* non-zero when the tenant's policy marks the category critical */
} mgw_pii_finding;

/* One piece of text a request sends upstream, with what was found in it.
 * Pieces without findings are not passed. OWNERSHIP: host-owned, borrowed for
 * on_pii_apply. THREADING: the hook's. */
typedef struct mgw_pii_text {
  uint32_t struct_size;
  mgw_str path; /* where it sits in the request, e.g. "messages[2].content" */
  mgw_str text;
  /* Sorted by offset, non-overlapping, at least one (finding_count >= 1).
   * Element i starts at (const char*)findings + i * finding_size: step by
   * finding_size, not by sizeof(mgw_pii_finding), so a later minor version may
   * grow the element; finding_size is a multiple of 8 and at least the 1.0
   * size. mgw_pii_finding_at() does this. */
  const mgw_pii_finding* findings;
  size_t finding_count;
  uint32_t finding_size;
} mgw_pii_text;

/* The i-th finding of a text, stepping by the host's element size. */
static inline const mgw_pii_finding* mgw_pii_finding_at(const mgw_pii_text* text, size_t i) {
  return (const mgw_pii_finding*)((const char*)text->findings + i * (size_t)text->finding_size);
}

/* OWNERSHIP: host-owned; what is passed is borrowed for the callback.
 * THREADING: call only during on_pii_apply, on its thread. The callbacks may
 * be called in any order; at most one of reject and replace per text. */
typedef struct mgw_pii_sink {
  uint32_t struct_size; /* host-set; a callback added later is called only when this covers it */
  void* host_data;
  /* Reject the whole request (422 pii_detected, param = the text's path).
   * `reason` lists the categories that caused it, comma-separated, e.g.
   * "payment_card,ssn". The host builds the client's message itself and uses
   * `reason` only when it holds nothing but [a-z_,]; it never holds a value. */
  void (*callback_reject)(void* host_data, mgw_str reason);
  /* Send this text upstream in place of the original (copied by the host). */
  void (*callback_replace)(void* host_data, mgw_str text);
  /* Record a finding on the usage record and, for a block or a flag, the audit
   * log. Pass one of the text's own elements (mgw_pii_finding_at), not a copy:
   * the host may read fields of a later minor version past the 1.0 size. The
   * host keeps the category and a count, never the value. */
  void (*callback_record)(void* host_data, const mgw_pii_finding* finding);
} mgw_pii_sink;

/* OWNERSHIP: plugin-owned, static. THREADING: every hook states its own. */
typedef struct mgw_pii_hooks {
  uint32_t struct_size;
  /* `config_json` is the mode's options object from the gateway's config ("{}"
   * when none); `host` is never NULL. OWNERSHIP: *out is the plugin's until
   * on_pii_destroy. THREADING: main thread. */
  mgw_status (*on_pii_new)(const mgw_host_api* host, mgw_str config_json, mgw_pii** out,
                           const mgw_text_sink* error);
  /* THREADING: main thread, after every scope of it was destroyed. */
  void (*on_pii_destroy)(mgw_pii* pii);
  /* Per-request state, e.g. placeholder numbering. OWNERSHIP: *out is the
   * plugin's until on_pii_scope_destroy. THREADING: any thread; the instance is
   * shared by all requests, so this must be thread-safe; must not block. */
  mgw_status (*on_pii_scope_new)(mgw_pii* pii, mgw_pii_scope** out);
  /* Frees the scope and everything it kept (values it saw included).
   * THREADING: the scope's last thread. */
  void (*on_pii_scope_destroy)(mgw_pii_scope* scope);
  /* Decides on one piece of text: call callback_reject, or callback_replace,
   * or neither (the text goes on unchanged); callback_record any number of
   * times. A non-OK status fails the request with 500 and the text is never
   * sent; MGW_INVALID_ARGUMENT means the host broke this contract, and the
   * plugin says why through the host's log callback (never quoting the text).
   * OWNERSHIP: `text` and its findings are borrowed for the call.
   * THREADING: one thread at a time per scope; must not block. */
  mgw_status (*on_pii_apply)(mgw_pii_scope* scope, const mgw_pii_text* text, const mgw_pii_sink* out);
} mgw_pii_hooks;

/* ------------------------------------------------------------------------ */
/* Storage plugins: one database each                                       */
/* ------------------------------------------------------------------------ */

typedef struct mgw_storage mgw_storage; /* one open database */

/* The records below are passed both ways. OWNERSHIP: always borrowed for the
 * call or callback they are passed to (rows from a plugin through a row sink,
 * arguments from the host); whoever keeps a field copies it. THREADING: used
 * only on the thread of that call. */

typedef struct mgw_tenant_record {
  uint32_t struct_size;
  int64_t id;
  mgw_str name;
  int64_t created_unix_ms;
  /* The tenant's settings: a JSON object the host validates and interprets
   * (PII policy, limits...). Storage keeps the text as given; "{}" when none
   * were ever set. */
  mgw_str settings_json;
} mgw_tenant_record;

/* One immutable version of a named prompt. A prompt belongs to a tenant and is
 * identified by (tenant_id, name); exactly one of its versions is active. */
typedef struct mgw_prompt_version_record {
  uint32_t struct_size;
  int64_t tenant_id;
  mgw_str name;
  int64_t version;         /* 1, 2, 3...: assigned by storage on create */
  int32_t active;          /* non-zero for the prompt's active version; ignored on create */
  mgw_str template_json;   /* JSON array of chat messages, validated by the host */
  mgw_str model;           /* catalog alias the prompt runs with */
  mgw_str parameters_json; /* JSON object of chat parameters, validated by the host */
  int64_t created_unix_ms;
} mgw_prompt_version_record;

typedef struct mgw_api_key_record {
  uint32_t struct_size;
  int64_t id; /* assigned by storage on create */
  int64_t tenant_id;
  mgw_str tenant_name;    /* filled on reads; ignored on create */
  mgw_str key_hash;       /* lowercase hex SHA-256 of the whole key; the key itself is never stored */
  mgw_str display_prefix; /* first characters of the key, to tell keys apart in listings */
  mgw_str scopes;         /* space-separated scope names */
  int64_t created_unix_ms;
  int64_t revoked_unix_ms; /* 0 while the key is active */
} mgw_api_key_record;

/* One settled amount against one lease. */
typedef struct mgw_ledger_charge {
  int64_t lease_id;
  int64_t amount;
} mgw_ledger_charge;

typedef struct mgw_usage_record {
  uint32_t struct_size;
  mgw_str request_id;
  int64_t tenant_id;
  int64_t key_id;
  mgw_str alias;
  mgw_str provider;
  mgw_str upstream_model;
  int64_t prompt_tokens;
  int64_t completion_tokens;
  int64_t total_tokens;
  int32_t http_status;
  mgw_str error_code; /* len 0 when the request succeeded */
  int64_t latency_us;
  int64_t ttft_us; /* time to first streamed byte; -1 when not streamed */
  int32_t streamed;
  int64_t created_unix_ms;
  mgw_str prompt_name;    /* the named prompt the request invoked; len 0 for none */
  int64_t prompt_version; /* its version; 0 for none */
  mgw_str pii_action;     /* "blocked", "masked", "flagged"; len 0 when nothing was found */
  mgw_str pii_findings;   /* JSON object, category -> count, e.g. {"email":2}; len 0 for none */
  /* ABI 1.2 (check with MGW_HAS_FIELD): money. Amounts are integer micro-units
   * of the currency (1 USD = 1000000); prices are micro-units per million tokens. */
  int64_t seq;     /* assigned by storage: insertion order, rises across processes; ignored on insert */
  mgw_str feature; /* the X-Feature the request named; len 0 for none */
  int64_t cached_prompt_tokens; /* of prompt_tokens, read from the vendor's cache */
  int64_t cost_micros;          /* what the request cost */
  int64_t price_input_micros;   /* the prices that applied, per million tokens */
  int64_t price_output_micros;
  int64_t price_cached_micros;
  mgw_str reason; /* internal refusal reason, e.g. "BUDGET_EXCEEDED"; len 0 for none */
  /* Insert only: settle these leases (see on_lease_take) in the same
   * transaction as the record, so that what a ledger counts as spent is
   * exactly what its records say. NULL/0 for none; NULL on reads. */
  const mgw_ledger_charge* charges;
  size_t charge_count;
  /* ABI 1.6 (check with MGW_HAS_FIELD): the W3C trace id (32 lowercase hex
   * characters) the request was served under, from its traceparent header or
   * started by the host; len 0 for records written before 1.6. */
  mgw_str trace_id;
  /* ABI 1.8 (check with MGW_HAS_FIELD): the API the request came through, a
   * short ASCII name: "chat.completions" (POST /v1/chat/completions),
   * "responses" (POST /v1/responses), later "messages", "embeddings". Opaque
   * to storage, which keeps it as given. A record from an older host has no
   * such field, and len 0 means the same: "chat.completions", which is also
   * what every record stored before 1.8 reads back as. */
  mgw_str operation;
} mgw_usage_record;

/* Filters for on_usage_query; a zero / empty field does not filter. */
typedef struct mgw_usage_query {
  uint32_t struct_size;
  int64_t tenant_id;
  mgw_str request_id;
  int64_t since_unix_ms; /* inclusive */
  int64_t until_unix_ms; /* exclusive */
  int64_t limit;         /* at most this many, newest first; 0 means 100; capped at 1000;
                            negative is MGW_INVALID_ARGUMENT */
} mgw_usage_query;

/* ABI 1.2: filters for on_usage_page and on_usage_totals. A zero / empty
 * field does not filter, except tenant_id, which always does: tenant_id 0
 * selects the records of requests refused before a tenant was known (ABI 1.5;
 * a plugin of an older minor may refuse it with MGW_INVALID_ARGUMENT). */
typedef struct mgw_usage_filter {
  uint32_t struct_size;
  int64_t tenant_id;
  int64_t from_unix_ms; /* created_unix_ms >= this; 0: no lower bound */
  int64_t to_unix_ms;   /* created_unix_ms < this; 0: no upper bound */
  mgw_str model;        /* the alias asked for */
  int32_t has_feature;  /* non-zero: feature must equal `feature` (len 0: requests that named none) */
  mgw_str feature;
  int64_t key_id;
  int32_t status_min; /* http_status in [status_min, status_max]; both 0: any */
  int32_t status_max;
  int32_t stream;     /* -1: any; 0: not streamed; 1: streamed */
  int64_t before_seq; /* on_usage_page: only records with seq < this; 0: from the newest */
  int64_t limit;      /* on_usage_page: at most this many (1..1000), by seq descending */
  /* on_usage_totals: "" for one row over the whole filter, or "hour", "day"
   * (UTC; key is the bucket's start in Unix ms, as decimal), "model", "feature", "key". */
  mgw_str group_by;
  /* ABI 1.8 (check with MGW_HAS_FIELD): only records whose operation (see
   * mgw_usage_record.operation) equals this; len 0: any. A record stored
   * without one matches "chat.completions". */
  mgw_str operation;
} mgw_usage_filter;

/* Sums over usage records. key: see mgw_usage_filter.group_by; len 0 for totals. */
typedef struct mgw_usage_group {
  uint32_t struct_size;
  mgw_str key;
  int64_t requests;
  int64_t prompt_tokens;
  int64_t completion_tokens;
  int64_t total_tokens;
  int64_t cost_micros;
} mgw_usage_group;

/* ABI 1.2: a spending limit of one tenant. `scope` is "tenant", "feature"
 * (subject: the feature name), "key" (subject: the API key id, decimal) or
 * "credit" (the tenant's prepaid account: window "none", limit_micros is
 * everything ever topped up, so the balance is limit_micros - spent). */
typedef struct mgw_budget_record {
  uint32_t struct_size;
  int64_t id; /* assigned by storage on create */
  int64_t tenant_id;
  mgw_str scope;
  mgw_str subject;
  mgw_str name;   /* the operator's label; may be empty */
  mgw_str window; /* "hour", "day", "month" (reset at the next UTC boundary) or "none" */
  int64_t limit_micros;
  int64_t created_unix_ms;
} mgw_budget_record;

/* ABI 1.2: a ledger is a limited quantity per window (a budget's money, a rate
 * limit's requests or tokens), named by an `account` string the host chooses.
 * Several processes share one ledger through leases: each takes a slice of
 * what is left, spends it in memory, and settles what it spent through the
 * charges of usage records. Storage keeps, atomically,
 *     spent + (granted - settled of every live lease) <= limit
 * where a lease is live until it is returned or its expiry passes (so the
 * slice of a process that died is freed after a bound). */
typedef struct mgw_lease_request {
  uint32_t struct_size;
  mgw_str account;
  int64_t window_start_unix_ms; /* the window the lease is for; 0 for a ledger without windows */
  int64_t limit;                /* the window's limit, as the host knows it now */
  int64_t lease_id;             /* 0: a new lease; otherwise grow this live lease */
  int64_t want;                 /* add up to this much... */
  int64_t at_least;             /* ...but nothing when less than this is free */
  int64_t expires_unix_ms;      /* the lease's new expiry */
  mgw_str holder;               /* who holds it (host, pid), for operators */
} mgw_lease_request;

typedef struct mgw_lease_grant {
  uint32_t struct_size;
  int64_t lease_id; /* the lease (new or grown); 0 when nothing was granted and none existed */
  int64_t added;    /* how much this call added: 0 or in [at_least, want] */
  int64_t granted;  /* the lease's total so far */
  int64_t spent;    /* the window's settled spend */
  int64_t reserved; /* the window's live unsettled lease amounts, this one included */
} mgw_lease_grant;

/* A window's standing, for reports. */
typedef struct mgw_ledger_state {
  uint32_t struct_size;
  int64_t spent;
  int64_t reserved; /* live unsettled lease amounts */
} mgw_ledger_state;

/* ABI 1.5: what one account's window has spent, as `modelgw storage copy`
 * moves it between databases (leases are not moved: they belong to the
 * processes of the old deployment). OWNERSHIP: borrowed for the call. */
typedef struct mgw_ledger_window {
  uint32_t struct_size;
  mgw_str account;
  int64_t window_start_unix_ms;
  int64_t spent;
} mgw_ledger_window;

/* ABI 1.3: one idempotency key of a tenant (POST /v1/chat/completions with an
 * Idempotency-Key). A key is first claimed (pending) by the request that will
 * make the call, then either completed with the response the host will replay
 * to every retry, or released when nothing worth replaying came of it. The
 * plugin stores `response` as opaque bytes; the host alone reads them.
 * OWNERSHIP: every mgw_str is borrowed for the call. */
#define MGW_IDEMPOTENCY_PENDING 1 /* claimed; its request is running */
#define MGW_IDEMPOTENCY_DONE 2    /* completed; `response` is replayed */
/* ABI 1.12: never stored; in a row of on_idempotency_finish_batch, the key is
 * to be freed (as on_idempotency_release) rather than completed. */
#define MGW_IDEMPOTENCY_FREE 3
typedef struct mgw_idempotency_record {
  uint32_t struct_size;
  int64_t tenant_id;
  mgw_str key;    /* the header's value, 1..255 printable ASCII bytes */
  mgw_str digest; /* the host's digest of the request the key was first used with */
  mgw_str owner;  /* the request_id of the request that claimed it */
  int32_t state;  /* MGW_IDEMPOTENCY_PENDING or MGW_IDEMPOTENCY_DONE */
  mgw_str response;
  int64_t created_unix_ms;
  /* Pending: when the claim lapses (its holder is presumed dead and the key
   * may be claimed again). Done: when the key's lifetime ends. From then on
   * the key counts as unused. */
  int64_t expires_unix_ms;
} mgw_idempotency_record;

/* ABI 1.3: one event of the audit log. Events form one chain per tenant
 * (tenant_id 0: the gateway's own chain), numbered by seq from 1 with no gap;
 * the host links each to the one before it (prev_hash) and hashes it (hash,
 * SHA-256 hex of its canonical form), so an edit, a removal, an insertion or a
 * reordering shows. Storage keeps every field as given and never changes or
 * deletes a stored event. OWNERSHIP: every mgw_str is borrowed for the call. */
typedef struct mgw_audit_event {
  uint32_t struct_size;
  int64_t id; /* storage's; set on reads, ignored on append */
  int64_t tenant_id;
  int64_t seq;
  int64_t created_unix_ms;
  mgw_str actor;        /* "key 12 (tenant acme)", "token sub=... (tenant acme)", "cli", "gateway" */
  mgw_str action;       /* "tenant.create", "pii.blocked", "budget.exhausted"... */
  mgw_str target;       /* what it acted on */
  mgw_str request_id;   /* "" when none */
  mgw_str details_json; /* a JSON object; never a secret or a PII value */
  mgw_str prev_hash;    /* the previous event's hash; 64 zeros for seq 1 */
  mgw_str hash;
  /* ABI 1.7 (check with MGW_HAS_FIELD): HMAC-SHA256 (hex) of `hash` under the
   * operator's audit key, which the store never sees, so that an event
   * appended by someone with only the store shows. len 0 when the host has no
   * key, and for events stored before 1.7. Storage keeps it as given and
   * returns it on reads. */
  mgw_str mac;
} mgw_audit_event;

/* ABI 1.9: one stored response of the Responses API (POST /v1/responses with
 * store: true), kept per (tenant_id, id) so that previous_response_id can
 * continue a conversation and GET/DELETE /v1/responses/{id} and its
 * input_items can answer. The plugin stores every field as given and never
 * parses the JSON: the host alone reads it. OWNERSHIP: every mgw_str is
 * borrowed for the call (on a row sink, for the callback). */
typedef struct mgw_response_record {
  uint32_t struct_size;
  int64_t tenant_id;
  mgw_str id;          /* "resp_" + 24 characters; unique per tenant (1..128 bytes) */
  mgw_str previous_id; /* the previous_response_id it continued; len 0: none */
  int64_t created_unix_ms;
  int64_t expires_unix_ms; /* the host purges it after this; never returned once passed */
  mgw_str input_json;      /* a JSON array: the input items of this turn, as the API lists them */
  mgw_str response_json;   /* a JSON object: the response object */
} mgw_response_record;

/* Which events on_audit_page returns. */
typedef struct mgw_audit_filter {
  uint32_t struct_size;
  int64_t tenant_id;
  int64_t from_unix_ms; /* created_unix_ms >= from; 0: no bound */
  int64_t to_unix_ms;   /* created_unix_ms < to; 0: no bound */
  mgw_str action;       /* exact; "" any */
  mgw_str actor;        /* exact; "" any */
  int64_t before_seq;   /* descending pages: seq < before_seq; 0: from the newest */
  int64_t after_seq;    /* ascending pages: seq > after_seq */
  int32_t ascending;    /* non-zero: oldest first from after_seq (before_seq ignored) */
  int64_t limit;        /* at most this many events */
} mgw_audit_filter;

/* Where rows go. OWNERSHIP: host-owned; a row is borrowed for the callback.
 * THREADING: call only during the hook it was passed to, on its thread. */
typedef struct mgw_row_sink {
  uint32_t struct_size; /* host-set; a callback added later is called only when this covers it */
  void* host_data;
  void (*callback_tenant)(void* host_data, const mgw_tenant_record* row);
  void (*callback_api_key)(void* host_data, const mgw_api_key_record* row);
  void (*callback_usage)(void* host_data, const mgw_usage_record* row);
  void (*callback_prompt_version)(void* host_data, const mgw_prompt_version_record* row);
  /* ABI 1.2 */
  void (*callback_budget)(void* host_data, const mgw_budget_record* row);
  void (*callback_usage_group)(void* host_data, const mgw_usage_group* row);
  /* ABI 1.3 */
  void (*callback_idempotency)(void* host_data, const mgw_idempotency_record* row);
  void (*callback_audit)(void* host_data, const mgw_audit_event* row);
  /* ABI 1.5 */
  void (*callback_ledger_window)(void* host_data, const mgw_ledger_window* row);
  /* ABI 1.9 */
  void (*callback_response)(void* host_data, const mgw_response_record* row);
  /* ABI 1.12: a row of a batch hook, with the index of the batch entry it
   * answers (on_idempotency_claim_batch: the live row that holds entry
   * `index`'s key). */
  void (*callback_idempotency_at)(void* host_data, size_t index, const mgw_idempotency_record* row);
} mgw_row_sink;

/* OWNERSHIP: plugin-owned, static. Every hook below borrows its arguments for
 * the call and passes rows out through `out` (see mgw_row_sink); none keeps a
 * pointer it was given.
 * THREADING: every hook except on_storage_open/close may be called
 * concurrently from any thread; the plugin synchronises. Storage hooks may
 * block (disk, network, locks): the host never calls them from a thread that
 * serves client I/O, only from its blocking pool, background threads and the
 * main thread. Failures other than NOT_FOUND/CONFLICT say why through `error`
 * when it is not NULL. */
typedef struct mgw_storage_hooks {
  uint32_t struct_size;
  /* Opens the database named by `config_json` (the storage.options object) and
   * brings its schema to the plugin's current version; a database whose schema
   * is newer than the plugin knows is MGW_UNSUPPORTED. Every storage plugin
   * accepts the boolean member "migrate" (default true): false refuses an
   * older schema with MGW_UNSUPPORTED instead of migrating it, and the host's
   * `modelgw migrate` opens with it set to true. Migrating must be safe while
   * other processes open the same database. OWNERSHIP: *out is the
   * plugin's until on_storage_close. THREADING: main thread. */
  mgw_status (*on_storage_open)(const mgw_host_api* host, mgw_str config_json, mgw_storage** out,
                                const mgw_text_sink* error);
  /* THREADING: main thread, after every other call returned. */
  void (*on_storage_close)(mgw_storage* storage);

  /* MGW_CONFLICT when the name is taken. */
  mgw_status (*on_tenant_create)(mgw_storage* storage, mgw_str name, int64_t now_unix_ms, int64_t* out_id,
                                 const mgw_text_sink* error);
  /* MGW_NOT_FOUND when absent; otherwise one callback_tenant. */
  mgw_status (*on_tenant_find)(mgw_storage* storage, mgw_str name, const mgw_row_sink* out,
                               const mgw_text_sink* error);
  mgw_status (*on_tenant_list)(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error);

  /* Stores a key record (id and tenant_name ignored); writes the new id.
   * MGW_INVALID_ARGUMENT for an unknown tenant_id. */
  mgw_status (*on_api_key_create)(mgw_storage* storage, const mgw_api_key_record* key, int64_t* out_id,
                                  const mgw_text_sink* error);
  /* MGW_NOT_FOUND when no key has this hash; otherwise one callback_api_key,
   * revoked keys included (the host checks revoked_unix_ms). */
  mgw_status (*on_api_key_find_by_hash)(mgw_storage* storage, mgw_str key_hash, const mgw_row_sink* out,
                                        const mgw_text_sink* error);
  /* Keys of one tenant, or of all when tenant_id is 0, oldest first. */
  mgw_status (*on_api_key_list)(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                                const mgw_text_sink* error);
  /* MGW_NOT_FOUND when no such key; revoking a revoked key is OK and keeps the
   * first revocation time. */
  mgw_status (*on_api_key_revoke)(mgw_storage* storage, int64_t key_id, int64_t now_unix_ms,
                                  const mgw_text_sink* error);

  /* Writes `count` records in one transaction: all or none. A record whose
   * request_id is already stored is skipped, with its rollups and charges:
   * the host replays the records it journaled while storage failed, and may
   * send one twice (ABI 1.2). The records lie
   * records[0].struct_size bytes apart (the host's sizeof, which a newer host
   * may have grown): step through the array with that stride, never with the
   * plugin's own sizeof. */
  mgw_status (*on_usage_insert)(mgw_storage* storage, const mgw_usage_record* records, size_t count,
                                const mgw_text_sink* error);
  mgw_status (*on_usage_query)(mgw_storage* storage, const mgw_usage_query* query, const mgw_row_sink* out,
                               const mgw_text_sink* error);

  /* Replaces a tenant's settings document (a JSON object, stored as given).
   * MGW_NOT_FOUND for an unknown tenant. */
  mgw_status (*on_tenant_settings_set)(mgw_storage* storage, int64_t tenant_id, mgw_str settings_json,
                                       const mgw_text_sink* error);

  /* Named prompts (part of ABI 1.0: every storage plugin provides them).
   *
   * Stores a new version of (record->tenant_id, record->name), numbered one past
   * the highest so far, in one transaction; writes that number to out_version.
   * The version becomes active when `activate` is non-zero or it is the first.
   * record->version and record->active are ignored. MGW_INVALID_ARGUMENT for an
   * unknown tenant. */
  mgw_status (*on_prompt_version_create)(mgw_storage* storage, const mgw_prompt_version_record* record,
                                         int32_t activate, int64_t* out_version, const mgw_text_sink* error);
  /* One version, through one callback_prompt_version; `version` 0 means the
   * active one. MGW_NOT_FOUND when there is no such prompt or version. */
  mgw_status (*on_prompt_version_find)(mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,
                                       const mgw_row_sink* out, const mgw_text_sink* error);
  /* Every version of the prompt `name`, or of all the tenant's prompts when
   * `name` is empty, ordered by name then version. */
  mgw_status (*on_prompt_version_list)(mgw_storage* storage, int64_t tenant_id, mgw_str name,
                                       const mgw_row_sink* out, const mgw_text_sink* error);
  /* Makes `version` the prompt's one active version. MGW_NOT_FOUND when there
   * is no such prompt or version. */
  mgw_status (*on_prompt_activate)(mgw_storage* storage, int64_t tenant_id, mgw_str name, int64_t version,
                                   const mgw_text_sink* error);

  /* ABI 1.2: usage queries, budgets and leases. A plugin without them (a
   * shorter table) leaves the host without spend control: it refuses to
   * start with budgets or rate limits configured.
   *
   * Records of filter->tenant_id matching the filter, by seq descending, at
   * most filter->limit, through callback_usage. */
  mgw_status (*on_usage_page)(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                              const mgw_text_sink* error);
  /* Sums over every record matching the filter (before_seq and limit ignored),
   * through callback_usage_group: one row for group_by "", else one per group
   * that has records, ordered by key. Must not scan every record of a busy
   * tenant: keep rollups as records are inserted. */
  mgw_status (*on_usage_totals)(mgw_storage* storage, const mgw_usage_filter* filter, const mgw_row_sink* out,
                                const mgw_text_sink* error);
  /* MGW_CONFLICT when the tenant already has a budget of this scope, subject
   * and window; MGW_INVALID_ARGUMENT for an unknown tenant. */
  mgw_status (*on_budget_create)(mgw_storage* storage, const mgw_budget_record* budget, int64_t* out_id,
                                 const mgw_text_sink* error);
  /* A tenant's budgets, or all when tenant_id is 0, by id. */
  mgw_status (*on_budget_list)(mgw_storage* storage, int64_t tenant_id, const mgw_row_sink* out,
                               const mgw_text_sink* error);
  /* Sets limit_micros to `limit` (replace non-zero) or adds `delta` to it
   * (replace zero), atomically; writes the new limit. MGW_NOT_FOUND for an
   * unknown id; MGW_INVALID_ARGUMENT when the result would be negative or
   * overflow. */
  mgw_status (*on_budget_set_limit)(mgw_storage* storage, int64_t budget_id, int32_t replace, int64_t amount,
                                    int64_t* out_limit, const mgw_text_sink* error);
  /* MGW_NOT_FOUND for an unknown id. */
  mgw_status (*on_budget_delete)(mgw_storage* storage, int64_t budget_id, const mgw_text_sink* error);
  /* Takes or grows a lease in one transaction (see mgw_lease_request); also
   * renews its expiry. A request for a lease that is gone (returned, lapsed)
   * is answered as for a new one. */
  mgw_status (*on_lease_take)(mgw_storage* storage, const mgw_lease_request* request, mgw_lease_grant* out,
                              const mgw_text_sink* error);
  /* Ends a lease: its granted amount becomes `keep` (what the holder settled
   * or will settle through records still being written), freeing the rest.
   * Unknown ids are OK. */
  mgw_status (*on_lease_return)(mgw_storage* storage, int64_t lease_id, int64_t keep,
                                const mgw_text_sink* error);
  /* Moves the expiry of these live leases to expires_unix_ms. */
  mgw_status (*on_lease_renew)(mgw_storage* storage, const int64_t* lease_ids, size_t count,
                               int64_t expires_unix_ms, const mgw_text_sink* error);
  /* The standing of one account's window; zeros for one never used.
   * now_unix_ms decides which leases are live. */
  mgw_status (*on_ledger_read)(mgw_storage* storage, mgw_str account, int64_t window_start_unix_ms,
                               int64_t now_unix_ms, mgw_ledger_state* out, const mgw_text_sink* error);

  /* ABI 1.3: idempotency keys. A plugin without them (a shorter table) leaves
   * the host unable to honour Idempotency-Key: it refuses requests that send
   * one. Keys are unique per (tenant_id, key).
   *
   * Claims claim->key for claim->owner in one transaction: when the tenant has
   * no row for the key, or its row expired (expires_unix_ms <= now_unix_ms),
   * stores `claim` (state PENDING, response empty) in its place and returns
   * MGW_OK. Otherwise returns MGW_CONFLICT and the live row through one
   * callback_idempotency, leaving it unchanged. */
  mgw_status (*on_idempotency_claim)(mgw_storage* storage, const mgw_idempotency_record* claim,
                                     int64_t now_unix_ms, const mgw_row_sink* out,
                                     const mgw_text_sink* error);
  /* Completes the PENDING row of (done->tenant_id, done->key) held by
   * done->owner: sets state DONE, response and expires_unix_ms. MGW_NOT_FOUND
   * when there is no such row (it lapsed and was claimed again, or purged). */
  mgw_status (*on_idempotency_complete)(mgw_storage* storage, const mgw_idempotency_record* done,
                                        const mgw_text_sink* error);
  /* Deletes the PENDING row of (tenant_id, key) held by `owner`, so the key is
   * free again. No such row is OK. */
  mgw_status (*on_idempotency_release)(mgw_storage* storage, int64_t tenant_id, mgw_str key, mgw_str owner,
                                       const mgw_text_sink* error);
  /* Deletes every row that expired at or before now_unix_ms, at most `limit`
   * of them (the host calls again while it gets `limit`); writes how many. */
  mgw_status (*on_idempotency_purge)(mgw_storage* storage, int64_t now_unix_ms, int64_t limit,
                                     int64_t* out_removed, const mgw_text_sink* error);

  /* ABI 1.3: the audit log. A plugin without these leaves the host without
   * an audit log: it says so at start-up.
   *
   * Appends `count` events (possibly of several tenants) in one transaction:
   * all or none. MGW_CONFLICT, appending none, when an event's (tenant_id,
   * seq) is already stored (another process appended first: the host reads
   * the chain's head again and relinks). Events lie records[0].struct_size
   * bytes apart, as in on_usage_insert. */
  mgw_status (*on_audit_append)(mgw_storage* storage, const mgw_audit_event* events, size_t count,
                                const mgw_text_sink* error);
  /* Events of filter->tenant_id matching the filter, by seq (descending, or
   * ascending when filter->ascending), at most filter->limit, through
   * callback_audit. */
  mgw_status (*on_audit_page)(mgw_storage* storage, const mgw_audit_filter* filter, const mgw_row_sink* out,
                              const mgw_text_sink* error);
  /* The newest event of every chain (one per tenant_id that has events), by
   * tenant_id, through callback_audit. */
  mgw_status (*on_audit_heads)(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error);

  /* ABI 1.5: moving a deployment to another database (`modelgw storage copy`).
   * A plugin without these can be copied from (every hook it needs is older)
   * but not into. The restores keep the source's ids, which usage records,
   * budgets, ledger accounts and audit events refer to, and are idempotent so
   * an interrupted copy can run again: a row equal to the one given is OK, a
   * different row holding its id (or its unique name, hash or scope) is
   * MGW_CONFLICT, leaving the database unchanged. After a restore, ids the
   * plugin assigns on create are above every restored one.
   *
   * Stores the tenant with record->id, name, created_unix_ms and settings_json. */
  mgw_status (*on_tenant_restore)(mgw_storage* storage, const mgw_tenant_record* record,
                                  const mgw_text_sink* error);
  /* Stores the key with record->id (tenant_name ignored), revoked_unix_ms
   * included. MGW_INVALID_ARGUMENT for an unknown tenant_id. */
  mgw_status (*on_api_key_restore)(mgw_storage* storage, const mgw_api_key_record* record,
                                   const mgw_text_sink* error);
  /* Stores the budget with record->id. MGW_INVALID_ARGUMENT for an unknown tenant_id. */
  mgw_status (*on_budget_restore)(mgw_storage* storage, const mgw_budget_record* record,
                                  const mgw_text_sink* error);
  /* Every ledger window with its settled spend, by account then window,
   * through callback_ledger_window. */
  mgw_status (*on_ledger_list)(mgw_storage* storage, const mgw_row_sink* out, const mgw_text_sink* error);
  /* Stores a window's spend where the account has none for that window yet;
   * equal is OK; a different stored spend is MGW_CONFLICT. */
  mgw_status (*on_ledger_restore)(mgw_storage* storage, const mgw_ledger_window* window,
                                  const mgw_text_sink* error);

  /* ABI 1.9: stored responses of the Responses API (see mgw_response_record).
   * A plugin without these (a shorter table) leaves the host unable to keep
   * responses: it refuses store: true and previous_response_id, and
   * `modelgw storage copy` copies none. Responses are unique per (tenant_id,
   * id). Every hook refuses with MGW_INVALID_ARGUMENT, saying why: a NULL
   * record, a record whose struct_size is below MGW_RESPONSE_RECORD_SIZE_1_9,
   * a row sink that is NULL or has no callback_response, a negative
   * tenant_id, an id outside 1..128 bytes (previous_id and the after_id of
   * on_response_page may be empty), a string with a NULL pointer and a
   * non-zero length, an empty JSON text or one over 16 MiB, a limit outside
   * its range.
   * Other failures are MGW_UNAVAILABLE or MGW_INTERNAL, as for every hook.
   * THREADING: as every storage hook (any thread, concurrently).
   *
   * Stores `record`. A row already stored under (tenant_id, id) that equals
   * it in every field is MGW_OK (so a copy can run again); a different one is
   * MGW_CONFLICT, leaving it unchanged. */
  mgw_status (*on_response_put)(mgw_storage* storage, const mgw_response_record* record,
                                const mgw_text_sink* error);
  /* The response (tenant_id, id) through one callback_response. MGW_NOT_FOUND
   * when the tenant has none with that id, or it expired (expires_unix_ms <=
   * now_unix_ms), whether or not it was purged yet. */
  mgw_status (*on_response_get)(mgw_storage* storage, int64_t tenant_id, mgw_str id, int64_t now_unix_ms,
                                const mgw_row_sink* out, const mgw_text_sink* error);
  /* Deletes the response (tenant_id, id), expired or not. MGW_NOT_FOUND when
   * there is none. */
  mgw_status (*on_response_delete)(mgw_storage* storage, int64_t tenant_id, mgw_str id,
                                   const mgw_text_sink* error);
  /* Deletes every response that expired at or before now_unix_ms, at most
   * `limit` (>= 1) of them (the host calls again while it gets `limit`);
   * writes how many to *out_removed when it is not NULL. */
  mgw_status (*on_response_purge)(mgw_storage* storage, int64_t now_unix_ms, int64_t limit,
                                  int64_t* out_removed, const mgw_text_sink* error);
  /* For `modelgw storage copy`: the responses ordered by (tenant_id, id),
   * ids compared bytewise, strictly after (after_tenant_id, after_id), at
   * most `limit` (1..1000) of them, expired ones included, through
   * callback_response. Start with (0, ""); the next page starts after the
   * last row; fewer than `limit` rows is the last page. */
  mgw_status (*on_response_page)(mgw_storage* storage, int64_t after_tenant_id, mgw_str after_id,
                                 int64_t limit, const mgw_row_sink* out, const mgw_text_sink* error);

  /* ABI 1.12: idempotency keys in batches (group commit). The host gathers
   * the claims of the requests that arrive while a batch is being written,
   * and their completions and releases, into one call each, so that one
   * write transaction serves many requests. A plugin without these (a
   * shorter table, or NULL) gets one on_idempotency_claim, _complete or
   * _release per row instead, with the same outcomes.
   *
   * Both take `count` (>= 1) records lying rows[0].struct_size bytes apart
   * (the host's sizeof; step with it, as in on_usage_insert) and an array
   * of `count` statuses, out_statuses[i] answering rows[i]. On MGW_OK the
   * plugin has written every entry of out_statuses and committed the one
   * transaction. Any other return means the batch failed as a whole: no row
   * of it was stored, changed or deleted (the transaction rolled back), the
   * host ignores out_statuses and whatever went to `held`, and `error` says
   * why. A row the plugin refuses on its own (a key outside 1..255 bytes, an
   * empty owner, a state it does not know) gets MGW_INVALID_ARGUMENT in its
   * entry, nothing is written for it and the other rows go on; a NULL
   * `rows` or `out_statuses`, a struct_size below
   * MGW_IDEMPOTENCY_RECORD_SIZE_1_3 or differing between rows is
   * MGW_INVALID_ARGUMENT for the call.
   * OWNERSHIP: rows, their strings and out_statuses are borrowed for the
   * call; a row passed to `held` is the plugin's, valid for the callback.
   * THREADING: as every storage hook (any thread, concurrently); `held` is
   * called on the calling thread, during the hook.
   *
   * Claims rows[0], rows[1], ... in that order, in one transaction, each as
   * on_idempotency_claim with now_unix_ms: a row sees the claims of the rows
   * before it, so the same (tenant_id, key) twice in one batch is claimed by
   * the first and held for the second. out_statuses[i] is MGW_OK (claimed:
   * rows[i] is stored, PENDING) or MGW_CONFLICT (held: rows[i] is not
   * stored, and the live row that holds its key went, unchanged, to
   * held->callback_idempotency_at(held->host_data, i, row) exactly once
   * when `held` is not NULL and its struct_size covers that callback), or
   * MGW_INVALID_ARGUMENT. */
  mgw_status (*on_idempotency_claim_batch)(mgw_storage* storage, const mgw_idempotency_record* rows,
                                           size_t count, int64_t now_unix_ms, mgw_status* out_statuses,
                                           const mgw_row_sink* held, const mgw_text_sink* error);
  /* Finishes rows[0], rows[1], ... in that order, in one transaction. A row
   * with state MGW_IDEMPOTENCY_DONE is completed as on_idempotency_complete
   * (out_statuses[i] MGW_OK, or MGW_NOT_FOUND when (tenant_id, key) has no
   * PENDING row held by its owner); a row with state MGW_IDEMPOTENCY_FREE is
   * released as on_idempotency_release (MGW_OK whether or not there was
   * such a row; its digest, response, created_unix_ms and expires_unix_ms
   * are ignored); any other state is MGW_INVALID_ARGUMENT for that row. */
  mgw_status (*on_idempotency_finish_batch)(mgw_storage* storage, const mgw_idempotency_record* rows,
                                            size_t count, mgw_status* out_statuses,
                                            const mgw_text_sink* error);
} mgw_storage_hooks;

/* ------------------------------------------------------------------------ */
/* Frozen sizes                                                             */
/* ------------------------------------------------------------------------ */
/* The size of each growable struct and hook table as the minor version named
 * defined it (up to its last field, without tail padding). A reader compares
 * struct_size with these, never with its own sizeof: a table of exactly
 * MGW_PROVIDER_HOOKS_SIZE_1_0 bytes is a complete 1.0 provider, whatever minor
 * the host is. sdk/abi/layout.txt pins every offset; CI fails when the layout
 * changes without a version change. */
#define MGW_HOST_API_SIZE_1_0 MGW_SIZE_THROUGH(mgw_host_api, callback_monotonic_ns)
#define MGW_PLUGIN_DESCRIPTOR_SIZE_1_0 MGW_SIZE_THROUGH(mgw_plugin_descriptor, hooks)
#define MGW_CALL_CONTEXT_SIZE_1_0 MGW_SIZE_THROUGH(mgw_call_context, prompt_tokens)
#define MGW_CALL_CONTEXT_SIZE_1_1 MGW_SIZE_THROUGH(mgw_call_context, member_count)
#define MGW_CALL_CONTEXT_SIZE_1_10 MGW_SIZE_THROUGH(mgw_call_context, operation)
#define MGW_CALL_CONTEXT_SIZE_1_11 MGW_SIZE_THROUGH(mgw_call_context, client_header_count)
#define MGW_REQUEST_SINK_SIZE_1_0 MGW_SIZE_THROUGH(mgw_request_sink, callback_body)
#define MGW_USAGE_SIZE_1_0 MGW_SIZE_THROUGH(mgw_usage, total_tokens)
#define MGW_USAGE_SIZE_1_2 MGW_SIZE_THROUGH(mgw_usage, cached_prompt_tokens)
#define MGW_USAGE_SIZE_1_11 MGW_SIZE_THROUGH(mgw_usage, cache_write_prompt_tokens)
#define MGW_ERROR_INFO_SIZE_1_0 MGW_SIZE_THROUGH(mgw_error_info, retry_after_ms)
#define MGW_RESPONSE_SINK_SIZE_1_0 MGW_SIZE_THROUGH(mgw_response_sink, callback_error)
#define MGW_PARAM_SPEC_SIZE_1_4 MGW_SIZE_THROUGH(mgw_param_spec, max)
#define MGW_PARAM_SINK_SIZE_1_4 MGW_SIZE_THROUGH(mgw_param_sink, callback_parameter)
#define MGW_PROVIDER_HOOKS_SIZE_1_0 MGW_SIZE_THROUGH(mgw_provider_hooks, on_stream_destroy)
#define MGW_PROVIDER_HOOKS_SIZE_1_4 MGW_SIZE_THROUGH(mgw_provider_hooks, on_provider_parameters)
#define MGW_PROVIDER_HOOKS_SIZE_1_10 MGW_SIZE_THROUGH(mgw_provider_hooks, on_provider_operations)
#define MGW_PII_FINDING_SIZE_1_0 ((MGW_SIZE_THROUGH(mgw_pii_finding, critical) + 7u) & ~(size_t)7u)
#define MGW_PII_TEXT_SIZE_1_0 MGW_SIZE_THROUGH(mgw_pii_text, finding_size)
#define MGW_PII_SINK_SIZE_1_0 MGW_SIZE_THROUGH(mgw_pii_sink, callback_record)
#define MGW_PII_HOOKS_SIZE_1_0 MGW_SIZE_THROUGH(mgw_pii_hooks, on_pii_apply)
#define MGW_TENANT_RECORD_SIZE_1_0 MGW_SIZE_THROUGH(mgw_tenant_record, settings_json)
#define MGW_PROMPT_VERSION_RECORD_SIZE_1_0 MGW_SIZE_THROUGH(mgw_prompt_version_record, created_unix_ms)
#define MGW_API_KEY_RECORD_SIZE_1_0 MGW_SIZE_THROUGH(mgw_api_key_record, revoked_unix_ms)
#define MGW_USAGE_RECORD_SIZE_1_0 MGW_SIZE_THROUGH(mgw_usage_record, pii_findings)
#define MGW_USAGE_RECORD_SIZE_1_2 MGW_SIZE_THROUGH(mgw_usage_record, charge_count)
#define MGW_USAGE_RECORD_SIZE_1_6 MGW_SIZE_THROUGH(mgw_usage_record, trace_id)
#define MGW_USAGE_RECORD_SIZE_1_8 MGW_SIZE_THROUGH(mgw_usage_record, operation)
#define MGW_USAGE_QUERY_SIZE_1_0 MGW_SIZE_THROUGH(mgw_usage_query, limit)
#define MGW_USAGE_FILTER_SIZE_1_2 MGW_SIZE_THROUGH(mgw_usage_filter, group_by)
#define MGW_USAGE_FILTER_SIZE_1_8 MGW_SIZE_THROUGH(mgw_usage_filter, operation)
#define MGW_USAGE_GROUP_SIZE_1_2 MGW_SIZE_THROUGH(mgw_usage_group, cost_micros)
#define MGW_BUDGET_RECORD_SIZE_1_2 MGW_SIZE_THROUGH(mgw_budget_record, created_unix_ms)
#define MGW_LEASE_REQUEST_SIZE_1_2 MGW_SIZE_THROUGH(mgw_lease_request, holder)
#define MGW_LEASE_GRANT_SIZE_1_2 MGW_SIZE_THROUGH(mgw_lease_grant, reserved)
#define MGW_LEDGER_STATE_SIZE_1_2 MGW_SIZE_THROUGH(mgw_ledger_state, reserved)
#define MGW_LEDGER_WINDOW_SIZE_1_5 MGW_SIZE_THROUGH(mgw_ledger_window, spent)
#define MGW_IDEMPOTENCY_RECORD_SIZE_1_3 MGW_SIZE_THROUGH(mgw_idempotency_record, expires_unix_ms)
#define MGW_AUDIT_EVENT_SIZE_1_3 MGW_SIZE_THROUGH(mgw_audit_event, hash)
#define MGW_AUDIT_EVENT_SIZE_1_7 MGW_SIZE_THROUGH(mgw_audit_event, mac)
#define MGW_AUDIT_FILTER_SIZE_1_3 MGW_SIZE_THROUGH(mgw_audit_filter, limit)
#define MGW_RESPONSE_RECORD_SIZE_1_9 MGW_SIZE_THROUGH(mgw_response_record, response_json)
#define MGW_ROW_SINK_SIZE_1_0 MGW_SIZE_THROUGH(mgw_row_sink, callback_prompt_version)
#define MGW_ROW_SINK_SIZE_1_2 MGW_SIZE_THROUGH(mgw_row_sink, callback_usage_group)
#define MGW_ROW_SINK_SIZE_1_3 MGW_SIZE_THROUGH(mgw_row_sink, callback_audit)
#define MGW_ROW_SINK_SIZE_1_5 MGW_SIZE_THROUGH(mgw_row_sink, callback_ledger_window)
#define MGW_ROW_SINK_SIZE_1_9 MGW_SIZE_THROUGH(mgw_row_sink, callback_response)
#define MGW_ROW_SINK_SIZE_1_12 MGW_SIZE_THROUGH(mgw_row_sink, callback_idempotency_at)
#define MGW_STORAGE_HOOKS_SIZE_1_0 MGW_SIZE_THROUGH(mgw_storage_hooks, on_prompt_activate)
#define MGW_STORAGE_HOOKS_SIZE_1_2 MGW_SIZE_THROUGH(mgw_storage_hooks, on_ledger_read)
#define MGW_STORAGE_HOOKS_SIZE_1_3 MGW_SIZE_THROUGH(mgw_storage_hooks, on_audit_heads)
#define MGW_STORAGE_HOOKS_SIZE_1_5 MGW_SIZE_THROUGH(mgw_storage_hooks, on_ledger_restore)
#define MGW_STORAGE_HOOKS_SIZE_1_9 MGW_SIZE_THROUGH(mgw_storage_hooks, on_response_page)
#define MGW_STORAGE_HOOKS_SIZE_1_12 MGW_SIZE_THROUGH(mgw_storage_hooks, on_idempotency_finish_batch)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MODELGW_PLUGIN_H */
