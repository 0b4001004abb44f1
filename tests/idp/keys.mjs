// The IdP's two signing keys, one RS256 and one ES256, each with its own kid.
// They live in a JSON file so that an IdP restarted on the same port publishes
// the same keyset: tokens issued before the restart stay verifiable, as with a
// real identity provider that is briefly unreachable.
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { exportJWK, generateKeyPair } from 'jose';

export const SIGNING_ALGS = ['RS256', 'ES256'];

async function generateKey(alg) {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  // The kid names its algorithm so a log or a decoded header is easy to read.
  return { ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-${randomBytes(8).toString('hex')}` };
}

function checkSaved(saved, path) {
  const keys = saved?.keys;
  const ok =
    Array.isArray(keys) &&
    SIGNING_ALGS.every((alg) => keys.some((k) => k.alg === alg && typeof k.kid === 'string' && k.d));
  if (!ok) throw new Error(`${path}: expected {"keys": [...]} with a private RS256 and ES256 JWK`);
  return keys;
}

// Private JWKs from `path`; generated and written there when the file does not exist.
export async function loadOrCreateKeys(path) {
  try {
    return checkSaved(JSON.parse(await readFile(path, 'utf8')), path);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  const keys = [];
  for (const alg of SIGNING_ALGS) keys.push(await generateKey(alg));
  // Write then rename: a reader never sees half a file.
  const partial = `${path}.${process.pid}.partial`;
  await writeFile(partial, JSON.stringify({ keys }, null, 2), { mode: 0o600 });
  await rename(partial, path);
  return keys;
}
