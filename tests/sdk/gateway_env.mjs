// What every SDK test script reads of its environment (set by
// tests/integration/openai_sdk_test.cpp): the gateway's base URL, a key, the
// aliases to run against, and a client on them that never retries.
import OpenAI from 'openai';

export function listFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export const baseURL = process.env.MODELGW_BASE_URL ?? '';
export const apiKey = process.env.MODELGW_API_KEY ?? '';
export const aliases = listFromEnv('MODELGW_ALIASES', []);
export const toolAliases = listFromEnv('MODELGW_TOOL_ALIASES', aliases);
export const REQUEST_ID = /^req_[0-9A-Za-z]{24}$/;

export function client() {
  return new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 20_000 });
}
