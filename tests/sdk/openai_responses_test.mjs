// The official `openai` npm client's Responses API (`client.responses`)
// against a running modelgw: whatever vendor an alias routes to, the typed
// response, the typed event stream and its helpers must work unchanged.
//
// Environment (set by tests/integration/openai_sdk_test.cpp):
//   MODELGW_BASE_URL      e.g. http://127.0.0.1:8080/v1
//   MODELGW_API_KEY       a gateway key with the chat scope
//   MODELGW_ALIASES       comma-separated catalog aliases, e.g. gpt,claude,gemini
//   MODELGW_TOOL_ALIASES  the aliases whose upstream answers tools requests with
//                         a tool call (default: all of MODELGW_ALIASES)
//
// Run: node --test tests/sdk/openai_responses_test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI from 'openai';

import { aliases, apiKey, baseURL, client, REQUEST_ID, toolAliases } from './gateway_env.mjs';

const TOOL_NAME = 'lookup_weather';
const TOOLS = [
  {
    type: 'function',
    name: TOOL_NAME,
    description: 'Looks up the weather for a query.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
      additionalProperties: false,
    },
    strict: true,
  },
];


// The fake upstream's answer: "echo: " + the last user text, whitespace collapsed.
function fakeReply(text) {
  return ['echo:', ...text.split(/\s+/).filter((w) => w.length > 0)].join(' ');
}

test('the environment names the gateway, a key and aliases', () => {
  assert.match(baseURL, /^http:\/\/127\.0\.0\.1:\d+\/v1$/, 'MODELGW_BASE_URL');
  assert.ok(apiKey.length > 0, 'MODELGW_API_KEY');
  assert.ok(aliases.length > 0, 'MODELGW_ALIASES');
});

test('an unknown parameter throws BadRequestError naming it', async () => {
  await assert.rejects(
    client().responses.create({ model: aliases[0], input: 'x', not_a_parameter: 1 }),
    (err) => {
      assert.ok(err instanceof OpenAI.BadRequestError, `BadRequestError, got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'unknown_parameter');
      assert.equal(err.param, 'not_a_parameter');
      assert.match(err.requestID ?? '', REQUEST_ID);
      return true;
    },
  );
});

test('a two-turn conversation by previous_response_id crosses vendors; the SDK reads it back', async () => {
  const [first, second] = [aliases[0], aliases.at(-1)];
  const one = await client().responses.create({ model: first, input: 'remember alpha' });
  assert.equal(one.store, true, 'store is the default where the gateway keeps responses');
  const two = await client().responses.create({ model: second, previous_response_id: one.id, input: 'and beta' });
  assert.equal(two.previous_response_id, one.id);
  assert.equal(two.model, second);
  assert.equal(two.output_text, 'echo: and beta');
  const read = await client().responses.retrieve(two.id);
  assert.equal(read.id, two.id);
  assert.equal(read.output_text, 'echo: and beta');
  const items = [];
  for await (const item of client().responses.inputItems.list(two.id)) items.push(item);
  assert.equal(items.length, 1);
  assert.equal(items[0].type, 'message');
  await client().responses.delete(one.id);
  await assert.rejects(client().responses.retrieve(one.id), (err) => {
    assert.ok(err instanceof OpenAI.NotFoundError, `NotFoundError, got ${err?.constructor?.name}: ${err}`);
    return true;
  });
});

// The fake upstream's own /v1/responses (what a native provider is sent), read
// by the SDK's own parser: its events and objects are the real wire format.
const fakeBaseURL = process.env.MODELGW_FAKE_BASE_URL ?? '';
if (fakeBaseURL !== '') test("the fake upstream's /v1/responses is what the SDK parses", async () => {
  const fake = new OpenAI({ baseURL: fakeBaseURL, apiKey: process.env.MODELGW_FAKE_API_KEY ?? '', maxRetries: 0 });
  const whole = await fake.responses.create({ model: 'gpt-4o-mini', input: 'fake wire check', store: false });
  assert.equal(whole.object, 'response');
  assert.equal(whole.output_text, 'echo: fake wire check');
  const helper = fake.responses.stream({ model: 'gpt-4o-mini', input: 'fake wire stream', store: false });
  const seen = new Set();
  helper.on('event', (event) => seen.add(event.type));
  const final = await helper.finalResponse();
  assert.equal(final.output_text, 'echo: fake wire stream');
  for (const type of ['response.created', 'response.output_text.delta', 'response.output_text.done', 'response.completed'])
    assert.ok(seen.has(type), `${type} in ${[...seen]}`);
});

for (const alias of aliases) {
  describe(`alias ${alias}`, () => {
    test('responses.create returns a typed response with output_text and usage', async () => {
      const text = `Hello from the Responses SDK to ${alias}`;
      const response = await client().responses.create({ model: alias, instructions: 'Be brief.', input: text });
      assert.match(response.id, /^resp_/);
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.equal(response.model, alias);
      assert.equal(response.output_text, fakeReply(text), 'the SDK joins the output_text parts');
      assert.equal(response.output[0].type, 'message');
      assert.ok(Number.isInteger(response.usage.input_tokens) && response.usage.input_tokens > 0);
      assert.equal(response.usage.output_tokens, fakeReply(text).split(' ').length);
      assert.equal(response.usage.total_tokens, response.usage.input_tokens + response.usage.output_tokens);
      assert.equal(response._request_id, response.request_id, 'X-Request-Id equals the body request_id');
    });

    test('stream: true yields typed events; the stream helper gives the final response', async () => {
      const text = `Stream   this please, ${alias}`;
      const stream = await client().responses.create({ model: alias, input: text, stream: true });
      const types = [];
      let deltas = '';
      let last = -1;
      for await (const event of stream) {
        types.push(event.type);
        assert.ok(types.length < 1000, 'a bounded stream');
        assert.equal(event.sequence_number, last + 1, 'sequence numbers count up from 0');
        last = event.sequence_number;
        if (event.type === 'response.output_text.delta') deltas += event.delta;
      }
      assert.equal(types[0], 'response.created');
      assert.equal(types.at(-1), 'response.completed');
      assert.equal(deltas, fakeReply(text));

      const helper = client().responses.stream({ model: alias, input: text });
      const final = await helper.finalResponse();
      assert.equal(final.status, 'completed');
      assert.equal(final.output_text, fakeReply(text));
    });

    if (toolAliases.includes(alias)) test('tools: a function_call item, then its output in a second turn', async () => {
      const question = `weather in Oslo for ${alias}`;
      const first = await client().responses.create({ model: alias, input: question, tools: TOOLS });
      const call = first.output.find((item) => item.type === 'function_call');
      assert.ok(call, JSON.stringify(first.output));
      assert.equal(call.name, TOOL_NAME);
      assert.deepEqual(JSON.parse(call.arguments), { query: question });
      // The second turn goes to another vendor: the conversation is the client's items.
      const other = aliases.find((a) => a !== alias) ?? alias;
      const second = await client().responses.create({
        model: other,
        tools: TOOLS,
        input: [
          { role: 'user', content: question },
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 C' },
          { role: 'user', content: 'and tomorrow?' },
        ],
      });
      assert.equal(second.status, 'completed');
      assert.equal(second.model, other);
      assert.equal(second.output_text, 'echo: and tomorrow?');
    });

    if (toolAliases.includes(alias)) test('streamed tools: argument deltas assemble the call', async () => {
      const question = `streamed weather in Rome for ${alias}`;
      const helper = client().responses.stream({ model: alias, input: question, tools: TOOLS });
      let deltas = '';
      helper.on('response.function_call_arguments.delta', (event) => {
        deltas += event.delta;
      });
      const final = await helper.finalResponse();
      const call = final.output.find((item) => item.type === 'function_call');
      assert.ok(call, JSON.stringify(final.output));
      assert.equal(call.name, TOOL_NAME);
      assert.equal(deltas, call.arguments);
      assert.deepEqual(JSON.parse(call.arguments), { query: question });
    });

    test('structured output: text.format json_schema is served, or refused naming text.format', async () => {
      const request = {
        model: alias,
        input: `json please ${alias}`,
        text: {
          format: {
            type: 'json_schema',
            name: 'reply',
            schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false, required: ['a'] },
            strict: true,
          },
        },
      };
      // The test catalog declares no structured output for the Anthropic alias.
      if (alias === 'claude') {
        await assert.rejects(client().responses.create(request), (err) => {
          assert.ok(err instanceof OpenAI.UnprocessableEntityError, `got ${err?.constructor?.name}: ${err}`);
          assert.equal(err.code, 'unsupported_parameter');
          assert.equal(err.param, 'text.format');
          assert.match(err.message, /'text\.format'/, 'the message names the Responses parameter');
          return true;
        });
        return;
      }
      const response = await client().responses.create(request);
      assert.equal(response.status, 'completed');
      assert.equal(response.text.format.type, 'json_schema');
    });
  });
}
