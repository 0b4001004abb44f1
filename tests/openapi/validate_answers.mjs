// Checks recorded answers of the gateway against docs/openapi.yaml.
//
//   node validate_answers.mjs ANSWERS.jsonl [--require-coverage]
//       ANSWERS.jsonl: one {"method","path","status","content_type","body"}
//       a line (tests/integration/openapi_test.cpp writes it), optionally
//       with the request ("target": path and query, "request_content_type",
//       "request_body"). Prints every mismatch (openapi_doc.mjs
//       validateResponse; and validateRequest for each request the gateway
//       accepted, a 2xx or 304: a call it serves must be one the document
//       describes) and, with
//       --require-coverage, every operation of the document no answer
//       exercised; exits 1 when there is any. On success it prints
//       "every operation exercised" (with --require-coverage).
//   node validate_answers.mjs --compare-served URL
//       Fetches URL (GET /v1/openapi.json) and checks it equals the YAML's
//       public part (core/tools/openapi_public.mjs): no /internal path, no
//       component only those used, every public path whole.
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { publicDocument } from '../../core/tools/openapi_public.mjs';
import { findOperation, findPath, listOperations, loadDoc, validateRequest, validateResponse } from './openapi_doc.mjs';

const args = process.argv.slice(2);
const doc = loadDoc();

if (args[0] === '--compare-served') {
  const r = await fetch(args[1]);
  const served = await r.json();
  const expected = publicDocument(doc);
  const internal = Object.keys(served.paths ?? {}).filter((p) => p.startsWith('/internal/'));
  const publicPaths = Object.keys(doc.paths).filter((p) => doc.paths[p]['x-internal'] !== true);
  if (r.status !== 200 || !isDeepStrictEqual(served, expected) || internal.length > 0 ||
      !isDeepStrictEqual(Object.keys(served.paths).sort(), publicPaths.sort()) ||
      JSON.stringify(served).includes('x-internal')) {
    console.error(`${args[1]}: status ${r.status}; the served document is not docs/openapi.yaml's public part` +
                  (internal.length ? ` (it serves ${internal.join(', ')})` : ''));
    process.exit(1);
  }
  const kept = Object.keys(served.components?.schemas ?? {}).length;
  console.log(`${args[1]} is docs/openapi.yaml's public part: ${publicPaths.length} paths, ${kept} schemas`);
  process.exit(0);
}

const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: validate_answers.mjs ANSWERS.jsonl [--require-coverage] | --compare-served URL');
  process.exit(2);
}
const requireCoverage = args.includes('--require-coverage');
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
const failures = [];
const seen = new Map(); // "GET /v1/usage" -> statuses
for (const [i, line] of lines.entries()) {
  const a = JSON.parse(line);
  const errors = validateResponse(a.method, a.path, a.status, a.content_type, a.body, doc);
  for (const e of errors) failures.push(`answer ${i + 1}: ${e}\n    body: ${String(a.body).slice(0, 300)}`);
  if ('target' in a && ((a.status >= 200 && a.status < 300) || a.status === 304)) {
    for (const e of validateRequest(a.method, a.target, a.request_content_type, a.request_body, doc)) {
      failures.push(`request ${i + 1} (answered ${a.status}): ${e}\n    sent: ${String(a.request_body).slice(0, 300)}`);
    }
  }
  const op = findOperation(a.method, a.path, doc);
  const key = op ? `${op.method} ${op.template}` : null;
  if (key) {
    if (!seen.has(key)) seen.set(key, new Set());
    seen.get(key).add(a.status);
  } else if (!findPath(a.path, doc)) {
    failures.push(`answer ${i + 1}: ${a.method} ${a.path} is on no documented path`);
  }
}

const uncovered = [];
const unsuccessful = [];
for (const op of listOperations(doc)) {
  const key = `${op.method} ${op.template}`;
  const statuses = seen.get(key);
  if (!statuses) uncovered.push(key);
  else if (![...statuses].some((s) => s >= 200 && s < 400)) unsuccessful.push(key);
}

console.log(`${lines.length} answers checked against docs/openapi.yaml; ${failures.length} mismatches`);
for (const f of failures) console.log(`MISMATCH ${f}`);
for (const [key, statuses] of [...seen.entries()].sort()) {
  console.log(`  ${key}: ${[...statuses].sort().join(' ')}`);
}
if (requireCoverage) {
  for (const u of uncovered) console.log(`NOT EXERCISED ${u}`);
  for (const u of unsuccessful) console.log(`NO SUCCESS ANSWER ${u}`);
  if (!uncovered.length && !unsuccessful.length) {
    console.log(`every operation exercised (${listOperations(doc).length}), each with a success answer`);
  }
}
const failed = failures.length > 0 || (requireCoverage && (uncovered.length > 0 || unsuccessful.length > 0));
process.exit(failed ? 1 : 0);
