// The official `openai` npm client's embeddings.create against a running
// modelgw: float vectors (the SDK asks for base64 by default and decodes
// them), explicit floats, dimensions, several inputs in order, and a chat
// model refused with BadRequestError.
//
// Environment (set by tests/integration/openai_sdk_test.cpp):
//   MODELGW_BASE_URL, MODELGW_API_KEY
//   MODELGW_EMBEDDING_ALIASES  comma-separated embedding aliases, e.g. emb,emb-gemini
//   MODELGW_ALIASES            chat aliases (one is sent here to be refused)
//
// Run: node --test tests/sdk/openai_embeddings_test.mjs
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import OpenAI from 'openai';

import { aliases, client, listFromEnv, REQUEST_ID } from './gateway_env.mjs';

const embeddingAliases = listFromEnv('MODELGW_EMBEDDING_ALIASES', []);

test('the environment names embedding aliases', () => {
  assert.ok(embeddingAliases.length > 0, 'MODELGW_EMBEDDING_ALIASES');
});

test('a chat model raises BadRequestError naming it', async () => {
  await assert.rejects(client().embeddings.create({ model: aliases[0], input: 'x' }), (err) => {
    assert.ok(err instanceof OpenAI.BadRequestError, `BadRequestError, got ${err?.constructor?.name}: ${err}`);
    assert.equal(err.code, 'invalid_model');
    assert.equal(err.param, 'model');
    assert.match(err.message, new RegExp(aliases[0]));
    assert.match(err.requestID ?? '', REQUEST_ID);
    return true;
  });
});

for (const alias of embeddingAliases) {
  describe(`alias ${alias}`, () => {
    test('embeddings.create with the SDK default (base64, decoded by the SDK)', async () => {
      const r = await client().embeddings.create({ model: alias, input: `embed me ${alias}`, dimensions: 16 });
      assert.equal(r.object, 'list');
      assert.equal(r.model, alias);
      assert.equal(r.data.length, 1);
      assert.equal(r.data[0].embedding.length, 16);
      assert.ok(r.data[0].embedding.every((v) => Number.isFinite(v)));
      assert.ok(r.usage.prompt_tokens > 0);
    });

    test('float vectors for several inputs, in order', async () => {
      const inputs = ['first text', 'second text', 'third text'];
      const r = await client().embeddings.create({ model: alias, input: inputs, dimensions: 8, encoding_format: 'float' });
      assert.equal(r.data.length, 3);
      r.data.forEach((d, i) => {
        assert.equal(d.index, i);
        assert.equal(d.embedding.length, 8);
      });
      // The same text gives the same vector, whichever request it is in.
      const alone = await client().embeddings.create({ model: alias, input: 'second text', dimensions: 8, encoding_format: 'float' });
      assert.deepEqual(alone.data[0].embedding, r.data[1].embedding);
    });
  });
}
