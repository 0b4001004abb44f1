/* The provider's configuration: its block of the gateway's YAML
 * (providers.<name>), handed over as JSON. This plugin reads one key,
 * api_key; the others (base_url, timeouts, ...) are the host's. */
#ifndef ECHO_CONFIG_H
#define ECHO_CONFIG_H

#include "buf.h"

#include <modelgw/plugin.h>

/* Sets `authorization` to "Bearer <api_key>" (a secret: never logged). On
 * failure returns 0 and sets `problem` to "<key>: <what is wrong>", never
 * quoting a value. Both buffers are NUL-terminated on return. */
int echo_read_config(mgw_str config_json, echo_buf* authorization, echo_buf* problem);

#endif
