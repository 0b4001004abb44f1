// The official `openai` npm client against a running modelgw: whatever vendor
// an alias routes to, the SDK's typed calls must work unchanged.
//
// Environment (set by tests/integration/openai_sdk_test.cpp):
//   MODELGW_BASE_URL      e.g. http://127.0.0.1:8080/v1
//   MODELGW_API_KEY       a gateway key with the chat scope
//   MODELGW_ALIASES       comma-separated catalog aliases, e.g. gpt,claude,gemini
//   MODELGW_TOOL_ALIASES  the aliases whose upstream answers tools requests with
//                         a tool call (default: all of MODELGW_ALIASES)
//
// Run: node --test tests/sdk/openai_sdk_test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI from 'openai';

import { aliases, apiKey, baseURL, client, REQUEST_ID, toolAliases } from './gateway_env.mjs';

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const TOOL_NAME = 'lookup_weather';
const TOOLS = [
  {
    type: 'function',
    function: {
      name: TOOL_NAME,
      description: 'Looks up the weather for a query.',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    },
  },
];


function userMessages(text) {
  return [{ role: 'user', content: text }];
}

// The fake upstream's deterministic answer (tests/fake_upstream/README.md):
// "echo: " + the last user text with whitespace runs collapsed.
function fakeReply(messages) {
  const lastUser = messages.filter((m) => m.role === 'user').at(-1);
  const words = (lastUser?.content ?? '').split(/\s+/).filter((w) => w.length > 0);
  return ['echo:', ...words].join(' ');
}

// prompt = sum of (4 + ceil(bytes / 4)) per message; completion = reply words.
function fakeUsage(messages, reply) {
  const prompt = messages.reduce((n, m) => n + 4 + Math.ceil(Buffer.byteLength(m.content, 'utf8') / 4), 0);
  const completion = reply.split(' ').length;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function assertUsage(usage, expected) {
  assert.ok(usage, 'usage is present');
  for (const member of ['prompt_tokens', 'completion_tokens', 'total_tokens']) {
    assert.ok(Number.isInteger(usage[member]), `${member} is an integer: ${JSON.stringify(usage)}`);
    assert.equal(usage[member], expected[member], `${member}: ${JSON.stringify(usage)}`);
  }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

test('the environment names the gateway, a key and aliases', () => {
  assert.match(baseURL, /^http:\/\/127\.0\.0\.1:\d+\/v1$/, 'MODELGW_BASE_URL');
  assert.ok(apiKey.length > 0, 'MODELGW_API_KEY');
  assert.ok(aliases.length > 0, 'MODELGW_ALIASES');
});

test('an unknown model throws NotFoundError 404 model_not_found carrying the request id', async () => {
  await assert.rejects(
    client().chat.completions.create({ model: 'no-such-alias-sdk', messages: userMessages('hello') }),
    (err) => {
      assert.ok(err instanceof OpenAI.NotFoundError, `NotFoundError, got ${err?.constructor?.name}: ${err}`);
      assert.ok(err instanceof OpenAI.APIError);
      assert.equal(err.status, 404);
      assert.equal(err.code, 'model_not_found');
      assert.equal(err.type, 'invalid_request_error');
      assert.match(err.requestID ?? '', REQUEST_ID);
      assert.equal(err.error.request_id, err.requestID, 'the body names the X-Request-Id');
      return true;
    },
  );
});

for (const alias of aliases) {
  describe(`alias ${alias}`, () => {
    test('plain create returns a typed chat.completion', async () => {
      const messages = userMessages(`Hello from the SDK to ${alias}`);
      const completion = await client().chat.completions.create({ model: alias, messages });

      assert.equal(typeof completion.id, 'string');
      assert.ok(completion.id.length > 0);
      assert.equal(completion.object, 'chat.completion');
      assert.ok(Number.isInteger(completion.created));
      assert.equal(completion.model, alias);
      assert.equal(completion.choices.length, 1);
      const [choice] = completion.choices;
      assert.equal(choice.index, 0);
      assert.equal(choice.message.role, 'assistant');
      assert.equal(choice.message.content, fakeReply(messages));
      assert.equal(choice.finish_reason, 'stop');
      assertUsage(completion.usage, fakeUsage(messages, fakeReply(messages)));
      assert.match(completion.request_id, REQUEST_ID);
      assert.equal(completion._request_id, completion.request_id, 'X-Request-Id equals the body request_id');
    });

    test('stream: true yields chunks whose deltas join to the reply, then a usage chunk', async () => {
      const messages = userMessages(`Stream   this please, ${alias}`);
      const stream = await client().chat.completions.create({ model: alias, messages, stream: true });
      const chunks = [];
      for await (const chunk of stream) {
        chunks.push(chunk);
        assert.ok(chunks.length < 1000, 'a bounded stream');
      }
      assert.ok(chunks.length >= 3, `got ${chunks.length} chunks`);
      for (const chunk of chunks) {
        assert.equal(chunk.object, 'chat.completion.chunk');
        assert.equal(chunk.model, alias);
        assert.equal(chunk.id, chunks[0].id, 'one id per stream');
      }
      assert.equal(chunks[0].choices[0].delta.role, 'assistant');
      const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
      assert.equal(content, fakeReply(messages));
      const finishes = chunks.map((c) => c.choices[0]?.finish_reason).filter((r) => r);
      assert.deepEqual(finishes, ['stop']);
      const last = chunks.at(-1);
      assert.deepEqual(last.choices, [], 'the last chunk has no choices');
      assertUsage(last.usage, fakeUsage(messages, fakeReply(messages)));
    });


    // Registered only where the upstream answers tools requests with a tool call.
    if (toolAliases.includes(alias)) test('tools: the SDK parses the tool call', async () => {
      const question = `weather in Oslo for ${alias}`;
      const completion = await client().chat.completions.create({
        model: alias,
        messages: userMessages(question),
        tools: TOOLS,
      });
      const [choice] = completion.choices;
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.equal(choice.message.tool_calls?.length, 1, JSON.stringify(choice.message));
      const [call] = choice.message.tool_calls;
      assert.equal(typeof call.id, 'string');
      assert.equal(call.type, 'function');
      assert.equal(call.function.name, TOOL_NAME);
      assert.deepEqual(JSON.parse(call.function.arguments), { query: question });
    });

    if (toolAliases.includes(alias)) test('streamed tools: the SDK stream helper assembles the tool call', async () => {
      const question = `streamed weather in Rome for ${alias}`;
      const runner = client().chat.completions.stream({
        model: alias,
        messages: userMessages(question),
        tools: TOOLS,
      });
      const completion = await runner.finalChatCompletion();
      const [choice] = completion.choices;
      assert.equal(choice.finish_reason, 'tool_calls');
      assert.equal(choice.message.tool_calls?.length, 1, JSON.stringify(choice.message));
      const [call] = choice.message.tool_calls;
      assert.equal(typeof call.id, 'string');
      assert.equal(call.function.name, TOOL_NAME);
      assert.deepEqual(JSON.parse(call.function.arguments), { query: question });
    });

    test('a tool result follow-up is accepted', async () => {
      const question = `weather in Lima for ${alias}`;
      const completion = await client().chat.completions.create({
        model: alias,
        tools: TOOLS,
        messages: [
          { role: 'user', content: question },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_sdk_1',
                type: 'function',
                function: { name: TOOL_NAME, arguments: JSON.stringify({ query: question }) },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_sdk_1', content: 'sunny, 24 C' },
        ],
      });
      assert.equal(completion.choices[0].finish_reason, 'stop');
      assert.equal(typeof completion.choices[0].message.content, 'string');
    });

    test('a request over the context window throws UnprocessableEntityError carrying the request id', async () => {
      // The catalog gives every alias a 128,000-token window; the gateway
      // refuses before any vendor is called.
      const request = { model: alias, messages: userMessages('too big'), max_tokens: 500_000 };
      await assert.rejects(client().chat.completions.create(request), (err) => {
        assert.ok(err instanceof OpenAI.APIError, `APIError, got ${err?.constructor?.name}: ${err}`);
        assert.ok(err instanceof OpenAI.UnprocessableEntityError, `got ${err.constructor.name}`);
        assert.equal(err.status, 422);
        assert.equal(err.code, 'context_length_exceeded');
        assert.equal(err.param, 'messages');
        assert.match(err.requestID ?? '', REQUEST_ID);
        assert.equal(err.error.request_id, err.requestID);
        return true;
      });
    });
  });
}
