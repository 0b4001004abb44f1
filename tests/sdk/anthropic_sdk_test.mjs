// The official `@anthropic-ai/sdk` npm client against a running modelgw, as a
// partner's code (or Claude Code) calls Anthropic: messages.create,
// messages.stream, messages.countTokens and tool use over two turns, on an
// alias served natively by the anthropic plugin and on aliases translated to
// other vendors; errors raise the SDK's own classes with the request id.
//
// Environment (set by tests/integration/openai_sdk_test.cpp):
//   MODELGW_ROOT_URL      e.g. http://127.0.0.1:8080 (the SDK adds /v1/messages)
//   MODELGW_API_KEY       a gateway key with the chat scope
//   MODELGW_ALIASES       comma-separated catalog aliases, e.g. claude,gpt,gemini
//   MODELGW_TOOL_ALIASES  the aliases whose upstream answers tools requests with a tool call
//
// Run: node --test tests/sdk/anthropic_sdk_test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';

import { aliases, apiKey, listFromEnv, REQUEST_ID } from './gateway_env.mjs';

const rootURL = process.env.MODELGW_ROOT_URL ?? '';
const toolAliases = listFromEnv('MODELGW_TOOL_ALIASES', aliases);

function client(key = apiKey) {
  return new Anthropic({ baseURL: rootURL, apiKey: key, maxRetries: 0, timeout: 20_000 });
}

// The fake upstream's answer: "echo: " + the last user text, whitespace collapsed.
function fakeReply(text) {
  return ['echo:', ...text.split(/\s+/).filter((w) => w.length > 0)].join(' ');
}

function textOf(message) {
  return message.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

test('the environment names the gateway, a key and aliases', () => {
  assert.match(rootURL, /^http:\/\/127\.0\.0\.1:\d+$/, 'MODELGW_ROOT_URL');
  assert.ok(apiKey.length > 0, 'MODELGW_API_KEY');
  assert.ok(aliases.length > 0, 'MODELGW_ALIASES');
});

test('a missing max_tokens raises BadRequestError naming it', async () => {
  await assert.rejects(
    client().messages.create({ model: aliases[0], messages: [{ role: 'user', content: 'x' }] }),
    (err) => {
      assert.ok(err instanceof Anthropic.BadRequestError, `BadRequestError, got ${err?.constructor?.name}: ${err}`);
      assert.equal(err.status, 400);
      assert.equal(err.error?.type, 'error');
      assert.equal(err.error?.error?.type, 'invalid_request_error');
      assert.equal(err.error?.error?.param, 'max_tokens');
      assert.match(err.requestID ?? '', REQUEST_ID);
      return true;
    },
  );
});

test('a wrong key raises AuthenticationError', async () => {
  await assert.rejects(
    client('mgw_not_a_key').messages.create({ model: aliases[0], max_tokens: 16, messages: [{ role: 'user', content: 'x' }] }),
    (err) => {
      assert.ok(err instanceof Anthropic.AuthenticationError, `AuthenticationError, got ${err?.constructor?.name}`);
      assert.equal(err.status, 401);
      return true;
    },
  );
});

test('an unknown model raises NotFoundError', async () => {
  await assert.rejects(
    client().messages.create({ model: 'no-such-model', max_tokens: 16, messages: [{ role: 'user', content: 'x' }] }),
    (err) => {
      assert.ok(err instanceof Anthropic.NotFoundError, `NotFoundError, got ${err?.constructor?.name}`);
      assert.equal(err.error?.error?.code, 'model_not_found');
      return true;
    },
  );
});

for (const alias of aliases) {
  describe(`alias ${alias}`, () => {
    test('messages.create answers a Message', async () => {
      const text = `anthropic sdk create ${alias}`;
      const { data: message, response } = await client()
        .messages.create({
          model: alias,
          max_tokens: 128,
          system: 'Be brief.',
          messages: [{ role: 'user', content: text }],
        })
        .withResponse();
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(message.model, alias);
      assert.equal(message.stop_reason, 'end_turn');
      assert.equal(textOf(message), fakeReply(text));
      assert.ok(message.usage.input_tokens > 0);
      assert.ok(message.usage.output_tokens > 0);
      assert.match(response.headers.get('request-id') ?? '', REQUEST_ID);
    });

    test('messages.stream yields text and a final message', async () => {
      const text = `anthropic sdk stream ${alias} one two three`;
      const stream = client().messages.stream({
        model: alias,
        max_tokens: 128,
        messages: [{ role: 'user', content: text }],
      });
      let streamed = '';
      stream.on('text', (t) => {
        streamed += t;
      });
      const final = await stream.finalMessage();
      assert.equal(streamed, fakeReply(text));
      assert.equal(textOf(final), fakeReply(text));
      assert.equal(final.stop_reason, 'end_turn');
      assert.ok(final.usage.output_tokens > 0);
    });

    test('messages.countTokens counts the prompt', async () => {
      const counted = await client().messages.countTokens({
        model: alias,
        system: 'Be brief.',
        messages: [{ role: 'user', content: `count these ${alias} words please` }],
      });
      assert.ok(Number.isInteger(counted.input_tokens) && counted.input_tokens > 0, JSON.stringify(counted));
    });

    if (toolAliases.includes(alias)) {
      test('tool use over two turns', async () => {
        const tools = [
          {
            name: 'lookup_weather',
            description: 'Looks up the weather for a query.',
            input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
          },
        ];
        const messages = [{ role: 'user', content: `weather in Paris ${alias}` }];
        const first = await client().messages.create({ model: alias, max_tokens: 128, tools, messages });
        assert.equal(first.stop_reason, 'tool_use', JSON.stringify(first));
        const call = first.content.find((b) => b.type === 'tool_use');
        assert.ok(call, JSON.stringify(first.content));
        assert.equal(call.name, 'lookup_weather');
        assert.equal(typeof call.input, 'object');
        messages.push({ role: 'assistant', content: first.content });
        messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] });
        const second = await client().messages.create({ model: alias, max_tokens: 128, tools, messages });
        assert.equal(second.type, 'message');
        assert.notEqual(second.stop_reason, undefined);
      });
    }
  });
}
