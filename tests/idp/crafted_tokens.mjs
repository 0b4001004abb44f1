// POST /_test/sign: tokens no honest client would get from /token (expired,
// wrong audience, mismatched kid and alg, unsigned, HMAC-signed with the public
// key...), signed with this IdP's own keys so only the crafted part is wrong.
import { CompactSign, exportSPKI, importJWK } from 'jose';

const encoder = new TextEncoder();

function base64url(text) {
  return Buffer.from(text, 'utf8').toString('base64url');
}

export class BadSignRequest extends Error {}

// keys: the private JWKs. request: {claims, header?, alg?, kid?, hmac_secret?}
//   claims  object (or a string, sent as the payload verbatim)
//   alg     "RS256" (default) | "ES256" | "HS256" | "none"; defaults to header.alg
//   header  members added to {alg, typ: "JWT", kid}; header.alg must equal alg
//   kid     replaces header.kid; null removes it
//   hmac_secret  for HS256; default: the RSA public key as PEM (the classic
//                confusion of an RSA public key with an HMAC secret)
export async function signCrafted(keys, request) {
  if (typeof request !== 'object' || request === null) throw new BadSignRequest('body must be a JSON object');
  const { claims, hmac_secret: hmacSecret } = request;
  const extraHeader = request.header ?? {};
  if (typeof extraHeader !== 'object' || Array.isArray(extraHeader)) {
    throw new BadSignRequest('header must be an object');
  }
  if ((typeof claims !== 'object' || claims === null) && typeof claims !== 'string') {
    throw new BadSignRequest('claims must be an object or a string');
  }
  const alg = request.alg ?? extraHeader.alg ?? 'RS256';
  if (extraHeader.alg !== undefined && extraHeader.alg !== alg) {
    throw new BadSignRequest(`header.alg '${extraHeader.alg}' differs from alg '${alg}'`);
  }
  const rsa = keys.find((k) => k.alg === 'RS256');
  const signer = keys.find((k) => k.alg === alg);
  // HS256 and none borrow the RSA kid, as an attacker would.
  const header = { alg, typ: 'JWT', kid: (signer ?? rsa).kid, ...extraHeader };
  if (request.kid !== undefined) header.kid = request.kid;
  if (header.kid === null) delete header.kid;
  const payload = typeof claims === 'string' ? claims : JSON.stringify(claims);

  if (alg === 'none') return `${base64url(JSON.stringify(header))}.${base64url(payload)}.`;
  let key;
  if (alg === 'HS256') {
    const secret = hmacSecret ?? (await exportSPKI(await importJWK(publicPart(rsa), 'RS256')));
    key = encoder.encode(secret);
  } else if (signer !== undefined) {
    key = await importJWK(signer, alg);
  } else {
    throw new BadSignRequest(`no key for alg '${alg}': RS256, ES256, HS256 or none`);
  }
  return await new CompactSign(encoder.encode(payload)).setProtectedHeader(header).sign(key);
}

function publicPart(jwk) {
  const { d, p, q, dp, dq, qi, ...rest } = jwk;
  return rest;
}
