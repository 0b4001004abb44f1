// docs/openapi.yaml as a checker of live answers. Used by
// tests/openapi/validate_answers.mjs (the C++ integration test openapi_test)
// and meant to be imported by other tests (the web console's browser test)
// to check every API call they make. The exported API is stable:
//
//   loadDoc(path = <repo>/docs/openapi.yaml) -> object
//       The parsed document (js-yaml, JSON schema: no dates or other YAML
//       types). Cached per path.
//
//   findOperation(method, path, doc = loadDoc()) -> {method, template,
//       operation, pathItem} | null
//       Matches a concrete path ("/v1/responses/resp_abc",
//       "/internal/v1/tenants/acme/keys"; a query string is ignored) against
//       the document's templated paths, a literal segment winning over a
//       {parameter}. null when no path matches or the path has no such method.
//
//   findPath(path, doc = loadDoc()) -> {template, pathItem} | null
//       The templated path alone, whatever the method.
//
//   listOperations(doc = loadDoc()) -> [{method, template, operationId}]
//       Every operation of the document ("GET", "/v1/usage", "listUsage").
//
//   validateResponse(method, path, status, contentType, bodyText, doc = loadDoc())
//       -> string[]: the mismatches, empty when the answer is as documented.
//       The status must be documented for the operation (`default` is used
//       only where the document has one; this one has none); a method the
//       path does not have must be answered 405 as the path's operations
//       document it. The content type (parameters ignored) must be one the
//       response documents, and the body must validate against its schema
//       (JSON Schema 2020-12, ajv); a response without content must have an
//       empty body. A text/event-stream body is split into events and each
//       checked as validateSseEvents does.
//
//   validateSseEvents(method, path, events, doc = loadDoc()) -> string[]
//       `events`: an SSE body (string), or an array of {event, data} objects
//       or of data strings. Each `data:` payload must be JSON valid against
//       the event schema the operation's 200 text/event-stream documents
//       (`x-sse-event-schema`), except the terminator it names
//       (`x-sse-terminator`, chat's "[DONE]"); an `event:` name must equal the
//       payload's `type` when both are present.
//
//       Stream rules: with a terminator, the stream ends with it or with an
//       error event (`{"error": ...}` or `type: "error"`), and nothing
//       follows an error event; `sequence_number`s, where events carry
//       them, count from 0 by one.
//
//   validateRequest(method, path, contentType, bodyText, doc = loadDoc())
//       -> string[]: what the call does that the document does not describe:
//       an undocumented operation, a query parameter it does not list or a
//       value not of its schema, a body where none is documented or a
//       required body missing, a content type or body not of the request
//       schema.
//
//   parseSse(text) -> [{event, data}]
//       The events of an SSE body (comments skipped, data lines joined).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..', '..');
const require = createRequire(path.join(repoRoot, 'package.json'));
const yaml = require('js-yaml');
const Ajv2020 = require('ajv/dist/2020').default ?? require('ajv/dist/2020');
const addFormatsModule = require('ajv-formats');
const addFormats = addFormatsModule.default ?? addFormatsModule;

export const defaultDocPath = path.join(repoRoot, 'docs', 'openapi.yaml');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const docs = new Map();
export function loadDoc(file = defaultDocPath) {
  if (!docs.has(file)) docs.set(file, yaml.load(readFileSync(file, 'utf8'), { schema: yaml.JSON_SCHEMA }));
  return docs.get(file);
}

// ---- paths -------------------------------------------------------------------
const matchers = new WeakMap();
function pathMatchers(doc) {
  if (!matchers.has(doc)) {
    const list = Object.keys(doc.paths ?? {}).map((template) => {
      const segments = template.split('/').filter(Boolean);
      return {
        template,
        segments,
        literals: segments.filter((s) => !/^\{.*\}$/.test(s)).length,
      };
    });
    // Most literal segments first: /internal/v1/keys before a {parameter}.
    list.sort((a, b) => b.literals - a.literals);
    matchers.set(doc, list);
  }
  return matchers.get(doc);
}

function segmentsOf(concrete) {
  const bare = String(concrete).split('?')[0].split('#')[0];
  return bare.split('/').filter(Boolean);
}

export function findPath(concrete, doc = loadDoc()) {
  const segs = segmentsOf(concrete);
  for (const m of pathMatchers(doc)) {
    if (m.segments.length !== segs.length) continue;
    let ok = true;
    for (let i = 0; i < segs.length && ok; i++) {
      const t = m.segments[i];
      ok = /^\{.*\}$/.test(t) ? segs[i].length > 0 : t === segs[i];
    }
    if (ok) return { template: m.template, pathItem: doc.paths[m.template] };
  }
  return null;
}

export function findOperation(method, concrete, doc = loadDoc()) {
  const found = findPath(concrete, doc);
  if (!found) return null;
  const m = String(method).toLowerCase();
  const operation = found.pathItem[m];
  if (!operation) return null;
  return { method: m.toUpperCase(), template: found.template, operation, pathItem: found.pathItem };
}

export function listOperations(doc = loadDoc()) {
  const out = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const m of METHODS) {
      if (item[m]) out.push({ method: m.toUpperCase(), template, operationId: item[m].operationId });
    }
  }
  return out;
}

// ---- references ----------------------------------------------------------------
function pointerEscape(s) {
  return String(s).replace(/~/g, '~0').replace(/\//g, '~1');
}
function resolvePointer(doc, pointer) {
  let node = doc;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node?.[key];
  }
  return node;
}
// Follows $ref chains of non-schema objects (responses); returns the object
// and its JSON pointer in the document.
function deref(doc, node, pointer) {
  let guard = 0;
  while (node && typeof node === 'object' && typeof node.$ref === 'string' && guard++ < 32) {
    pointer = node.$ref;
    node = resolvePointer(doc, pointer);
  }
  return { node, pointer };
}

// ---- schemas ---------------------------------------------------------------------
const ajvs = new WeakMap();
function ajvFor(doc) {
  if (!ajvs.has(doc)) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi-doc');
    ajvs.set(doc, { ajv, validators: new Map() });
  }
  return ajvs.get(doc);
}
function validatorAt(doc, pointer) {
  const { ajv, validators } = ajvFor(doc);
  if (!validators.has(pointer)) validators.set(pointer, ajv.compile({ $ref: 'openapi-doc' + pointer }));
  return validators.get(pointer);
}
function schemaErrors(doc, pointer, value, label) {
  const validate = validatorAt(doc, pointer);
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 8).map((e) => {
    const extra = e.params && Object.keys(e.params).length ? ' ' + JSON.stringify(e.params) : '';
    return `${label}: ${e.instancePath || '(root)'} ${e.message}${extra}`;
  });
}

// ---- SSE ---------------------------------------------------------------------------
export function parseSse(text) {
  const events = [];
  for (const block of String(text).replace(/\r\n/g, '\n').split(/\n\n+/)) {
    if (!block.trim()) continue;
    let event;
    const data = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length || event !== undefined) events.push({ event, data: data.join('\n') });
  }
  return events;
}

function streamMedia(doc, op) {
  const ok = deref(doc, op.operation.responses?.['200'], '');
  const media = ok.node?.content?.['text/event-stream'];
  if (!media) return null;
  const pointer =
    media['x-sse-event-schema']?.$ref ??
    `${ok.pointer || `#/paths/${pointerEscape(op.template)}/${op.method.toLowerCase()}/responses/200`}` +
      '/content/text~1event-stream/x-sse-event-schema';
  return { pointer, terminator: media['x-sse-terminator'] };
}

export function validateSseEvents(method, concrete, events, doc = loadDoc()) {
  const op = findOperation(method, concrete, doc);
  const where = `${String(method).toUpperCase()} ${concrete}`;
  if (!op) return [`${where}: no such operation in the document`];
  const media = streamMedia(doc, op);
  if (!media) return [`${where}: the operation documents no text/event-stream answer`];
  const list =
    typeof events === 'string'
      ? parseSse(events)
      : events.map((e) => (typeof e === 'string' ? { data: e } : { event: e.event ?? e.type, data: e.data }));
  const errors = [];
  if (list.length === 0) errors.push(`${where}: an empty stream`);
  const isErrorPayload = (p) => p && typeof p === 'object' && (p.type === 'error' || ('error' in p && !('type' in p)));
  let expectedSequence = 0;
  list.forEach((e, i) => {
    const label = `${where} event ${i}${e.event ? ` (${e.event})` : ''}`;
    if (media.terminator !== undefined && e.data === media.terminator) {
      if (i !== list.length - 1) errors.push(`${label}: ${media.terminator} is not the last event`);
      return;
    }
    let payload;
    try {
      payload = JSON.parse(e.data);
    } catch {
      errors.push(`${label}: data is not JSON: ${String(e.data).slice(0, 120)}`);
      return;
    }
    errors.push(...schemaErrors(doc, media.pointer, payload, label));
    if (isErrorPayload(payload) && i !== list.length - 1) errors.push(`${label}: events follow an error event`);
    if (payload && typeof payload === 'object' && 'sequence_number' in payload) {
      if (payload.sequence_number !== expectedSequence) {
        errors.push(`${label}: sequence_number ${payload.sequence_number}, expected ${expectedSequence}`);
      }
      expectedSequence = Number(payload.sequence_number) + 1;
    }
    if (e.event && payload && typeof payload === 'object' && typeof payload.type === 'string' && payload.type !== e.event) {
      errors.push(`${label}: event name ${e.event} but data.type ${payload.type}`);
    }
  });
  if (media.terminator !== undefined && list.length > 0) {
    const last = list[list.length - 1];
    let lastPayload;
    try {
      lastPayload = JSON.parse(last.data);
    } catch {
      lastPayload = undefined;
    }
    if (last.data !== media.terminator && !isErrorPayload(lastPayload)) {
      errors.push(`${where}: the stream ends neither with ${media.terminator} nor with an error event`);
    }
  }
  return errors;
}

// ---- requests ------------------------------------------------------------------------
function parametersOf(doc, op) {
  const out = new Map();
  const base = `#/paths/${pointerEscape(op.template)}`;
  const lists = [
    [op.pathItem?.parameters ?? [], `${base}/parameters`],
    [op.operation.parameters ?? [], `${base}/${op.method.toLowerCase()}/parameters`],
  ];
  for (const [list, at] of lists) {
    list.forEach((raw, i) => {
      const { node, pointer } = deref(doc, raw, `${at}/${i}`);
      if (node) out.set(`${node.in}:${node.name}`, { node, pointer });
    });
  }
  return out;
}

function coerceQueryValue(schema, value) {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (type === 'integer' || type === 'number') return /^-?[0-9]+(\.[0-9]+)?$/.test(value) ? Number(value) : value;
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  if (type === 'array') return [value];
  return value;
}

export function validateRequest(method, concrete, contentType, bodyText, doc = loadDoc()) {
  const where = `${String(method).toUpperCase()} ${concrete}`;
  const op = findOperation(method, concrete, doc);
  if (!op) return [`${where}: no such operation in the document`];
  const errors = [];
  const params = parametersOf(doc, op);
  const query = String(concrete).includes('?') ? String(concrete).split('?')[1].split('#')[0] : '';
  for (const [name, value] of new URLSearchParams(query)) {
    const p = params.get(`query:${name}`);
    if (!p) {
      errors.push(`${where}: query parameter '${name}' is not documented`);
      continue;
    }
    if (!p.node.schema) continue;
    const coerced = coerceQueryValue(p.node.schema, value);
    errors.push(...schemaErrors(doc, `${p.pointer}/schema`, coerced, `${where} query ${name}`));
  }
  const requestBody = deref(doc, op.operation.requestBody, `#/paths/${pointerEscape(op.template)}/${op.method.toLowerCase()}/requestBody`);
  const body = bodyText ?? '';
  if (!requestBody.node) {
    if (body.length) errors.push(`${where}: a body where the operation documents none`);
    return errors;
  }
  if (!body.length) {
    if (requestBody.node.required) errors.push(`${where}: the documented body is required`);
    return errors;
  }
  const mediaType = String(contentType ?? '').split(';')[0].trim().toLowerCase();
  const media = requestBody.node.content?.[mediaType];
  if (!media) {
    errors.push(`${where}: request content type '${contentType}' is not documented`);
    return errors;
  }
  let value = body;
  if (mediaType === 'application/json') {
    try {
      value = JSON.parse(body);
    } catch {
      errors.push(`${where}: the request body is not JSON`);
      return errors;
    }
  }
  if (media.schema) {
    errors.push(...schemaErrors(doc, `${requestBody.pointer}/content/${pointerEscape(mediaType)}/schema`, value, `${where} request`));
  }
  return errors;
}

// ---- answers -------------------------------------------------------------------------
export function validateResponse(method, concrete, status, contentType, bodyText, doc = loadDoc()) {
  const where = `${String(method).toUpperCase()} ${concrete} -> ${status}`;
  let op = findOperation(method, concrete, doc);
  let pointerBase;
  let responses;
  if (!op) {
    const found = findPath(concrete, doc);
    if (!found) return [`${where}: no documented path matches`];
    // A method the path does not have: 405, as the path's operations document it.
    if (Number(status) !== 405) return [`${where}: ${String(method).toUpperCase()} is not documented on ${found.template}`];
    const m = METHODS.find((k) => found.pathItem[k]?.responses?.['405']);
    if (!m) return [`${where}: ${found.template} documents no 405`];
    op = { method: m.toUpperCase(), template: found.template, operation: found.pathItem[m] };
  }
  responses = op.operation.responses ?? {};
  pointerBase = `#/paths/${pointerEscape(op.template)}/${op.method.toLowerCase()}/responses`;
  let key = String(status);
  if (!(key in responses)) {
    const range = `${key[0]}XX`;
    if (range in responses) key = range;
    else if ('default' in responses) key = 'default';
    else return [`${where}: status ${status} is not documented for ${op.method} ${op.template}`];
  }
  const { node: response, pointer } = deref(doc, responses[key], `${pointerBase}/${pointerEscape(key)}`);
  const body = bodyText ?? '';
  if (!response.content) {
    return body.length ? [`${where}: documented without content, but the body has ${body.length} bytes`] : [];
  }
  const mediaType = String(contentType ?? '').split(';')[0].trim().toLowerCase();
  const media = response.content[mediaType];
  if (!media) {
    return [`${where}: content type '${contentType}' is not documented (${Object.keys(response.content).join(', ')})`];
  }
  if (mediaType === 'text/event-stream') {
    if (Number(status) !== 200) return [`${where}: a stream with status ${status}`];
    return validateSseEvents(op.method, concrete, body, doc).map((e) => `${where}: ${e}`);
  }
  if (!media.schema) return [];
  const schemaPointer = `${pointer}/content/${pointerEscape(mediaType)}/schema`;
  let value = body;
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      value = JSON.parse(body);
    } catch {
      return [`${where}: the body is not JSON: ${body.slice(0, 120)}`];
    }
  }
  return schemaErrors(doc, schemaPointer, value, where);
}
