// The checker of tests/openapi/openapi_doc.mjs on answers made up here: it
// must find operations by concrete path, pass documented answers and catch
// the mistakes it exists for (an undocumented status, a wrong envelope, a
// missing required member, an unknown member of a closed shape, a bad stream
// event). Run by ctest (openapi_checker_self_test).
import assert from 'node:assert/strict';
import { findOperation, listOperations, validateRequest, validateResponse, validateSseEvents } from './openapi_doc.mjs';

const rid = 'req_0123456789abcdefghijklmn';
const error = (type, code, param = null) => JSON.stringify({ error: { type, code, message: 'm', param, request_id: rid } });

assert.equal(findOperation('GET', '/v1/responses/resp_abc').template, '/v1/responses/{response_id}');
assert.equal(findOperation('get', '/v1/responses/resp_abc/input_items?limit=2').template,
  '/v1/responses/{response_id}/input_items');
assert.equal(findOperation('POST', '/internal/v1/tenants/acme/keys').template, '/internal/v1/tenants/{tenant}/keys');
assert.equal(findOperation('GET', '/internal/v1/keys').template, '/internal/v1/keys');
assert.equal(findOperation('PUT', '/v1/usage'), null);
assert.equal(findOperation('GET', '/v1/nothing'), null);
assert.ok(listOperations().length >= 39);

assert.deepEqual(validateResponse('GET', '/healthz', 200, 'application/json', JSON.stringify({ request_id: rid, status: 'ok' })), []);
assert.deepEqual(validateResponse('GET', '/v1/usage', 401, 'application/json', error('authentication_error', 'missing_api_key')), []);
assert.deepEqual(validateResponse('PUT', '/v1/usage', 405, 'application/json; charset=utf-8', error('invalid_request_error', 'method_not_allowed')), []);
// An undocumented status, a wrong type for the status, a code not of it, an extra member.
assert.equal(validateResponse('GET', '/healthz', 418, 'application/json', '{}').length, 1);
assert.ok(validateResponse('GET', '/v1/usage', 401, 'application/json', error('invalid_request_error', 'missing_api_key')).length > 0);
assert.ok(validateResponse('GET', '/v1/usage', 403, 'application/json', error('authentication_error', 'nope')).length > 0);
assert.ok(validateResponse('GET', '/healthz', 200, 'application/json', JSON.stringify({ request_id: rid, status: 'ok', x: 1 })).length > 0);
assert.ok(validateResponse('GET', '/healthz', 200, 'text/html', '<p>').length > 0);
// Anthropic's envelope on /v1/messages, and only there.
const anthropic = JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'm', code: 'missing_api_key', param: null, request_id: rid }, request_id: rid });
assert.deepEqual(validateResponse('POST', '/v1/messages', 401, 'application/json', anthropic), []);
assert.ok(validateResponse('POST', '/v1/chat/completions', 401, 'application/json', anthropic).length > 0);
assert.ok(validateResponse('POST', '/v1/messages', 401, 'application/json', error('authentication_error', 'missing_api_key')).length > 0);
// Streams.
const chunk = { request_id: rid, id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] };
assert.deepEqual(validateSseEvents('POST', '/v1/chat/completions', `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`), []);
assert.ok(validateSseEvents('POST', '/v1/chat/completions', ['[DONE]', JSON.stringify(chunk)]).length > 0);
assert.ok(validateSseEvents('POST', '/v1/chat/completions', [JSON.stringify({ ...chunk, object: 'x' })]).length > 0);
// A chat stream must end with [DONE] or an error event; responses events count from 0.
assert.ok(validateSseEvents('POST', '/v1/chat/completions', [JSON.stringify(chunk)]).length > 0);
const failure = { error: { type: 'api_error', code: 'provider_failed', message: 'm', param: null, request_id: rid } };
assert.deepEqual(validateSseEvents('POST', '/v1/chat/completions', [JSON.stringify(chunk), JSON.stringify(failure)]), []);
const delta = (n) => ({ data: JSON.stringify({ type: 'response.output_text.delta', sequence_number: n, request_id: rid,
  item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'x' }), event: 'response.output_text.delta' });
assert.deepEqual(validateSseEvents('POST', '/v1/responses', [delta(0), delta(1)]), []);
assert.ok(validateSseEvents('POST', '/v1/responses', [delta(0), delta(2)]).length > 0);
assert.deepEqual(validateSseEvents('POST', '/v1/messages', [{ event: 'message_stop', data: '{"type":"message_stop"}' }]), []);
assert.ok(validateSseEvents('POST', '/v1/messages', [{ event: 'ping', data: '{"type":"message_stop"}' }]).length > 0);
// Requests.
assert.deepEqual(validateRequest('GET', '/v1/usage?limit=5&group_by=day&stream=true', '', ''), []);
assert.ok(validateRequest('GET', '/v1/usage?limit=0', '', '').length > 0);
assert.ok(validateRequest('GET', '/v1/usage?group_by=week', '', '').length > 0);
assert.ok(validateRequest('GET', '/v1/usage?bogus=1', '', '').length > 0);
assert.deepEqual(validateRequest('POST', '/internal/v1/tenants/acme/budgets', 'application/json',
  JSON.stringify({ window: 'day', limit: '5.00' })), []);
assert.ok(validateRequest('POST', '/internal/v1/tenants/acme/budgets', 'application/json',
  JSON.stringify({ window: 'year', limit: '5.00' })).length > 0);
assert.ok(validateRequest('POST', '/internal/v1/tenants', 'application/json', '').length > 0);
assert.ok(validateRequest('GET', '/v1/models', 'application/json', '{}').length > 0);
console.log('openapi_doc.mjs self-test passed');
