// The OpenAI Agents SDK (`@openai/agents`) against a running modelgw: one
// agent run with a function tool, over the Responses API, whatever vendor the
// alias routes to. The run calls the model, executes the tool the model
// called, sends its output back in a second Responses call and ends with the
// model's text.
//
// Environment (set by tests/integration/openai_sdk_test.cpp):
//   MODELGW_BASE_URL      e.g. http://127.0.0.1:8080/v1
//   MODELGW_API_KEY       a gateway key with the chat scope
//   MODELGW_TOOL_ALIASES  the aliases whose upstream answers tools requests with a tool call
//
// Run: node --test tests/sdk/openai_agents_test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

import { apiKey, baseURL, toolAliases } from './gateway_env.mjs';

// Nothing leaves loopback: no tracing export, the gateway as the client.
setTracingDisabled(true);
setOpenAIAPI('responses');
setDefaultOpenAIClient(new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 20_000 }));

test('the environment names the gateway, a key and tool aliases', () => {
  assert.match(baseURL, /^http:\/\/127\.0\.0\.1:\d+\/v1$/, 'MODELGW_BASE_URL');
  assert.ok(apiKey.length > 0, 'MODELGW_API_KEY');
  assert.ok(toolAliases.length > 0, 'MODELGW_TOOL_ALIASES');
});

for (const alias of toolAliases) {
  describe(`alias ${alias}`, () => {
    for (const stream of [false, true]) {
      test(`an agent run calls the tool and finishes with text (stream: ${stream})`, async () => {
        const calls = [];
        const lookupWeather = tool({
          name: 'lookup_weather',
          description: 'Looks up the weather for a query.',
          parameters: z.object({ query: z.string() }),
          execute: async ({ query }) => {
            calls.push(query);
            return `sunny in ${query}`;
          },
        });
        const agent = new Agent({
          name: 'Weather',
          instructions: 'Answer with the weather tool.',
          model: alias,
          tools: [lookupWeather],
        });
        const question = `weather in Oslo via ${alias}`;
        let result;
        if (stream) {
          result = await run(agent, question, { stream: true, maxTurns: 4 });
          for await (const _event of result) {
            // drained: the run completes as its events are read
          }
          await result.completed;
        } else {
          result = await run(agent, question, { maxTurns: 4 });
        }
        assert.deepEqual(calls, [question], 'the model called the tool once, with the question');
        assert.equal(typeof result.finalOutput, 'string');
        assert.match(result.finalOutput, /^echo:/, `final output: ${result.finalOutput}`);
        const kinds = result.newItems.map((item) => item.type);
        assert.deepEqual(kinds, ['tool_call_item', 'tool_call_output_item', 'message_output_item']);
      });
    }
  });
}
