// The HTTP front of the test IdP: counts what tests count, adds the
// Cache-Control the gateway's keyset TTL comes from (the library sends none),
// serves the /_test/* control endpoints, and hands everything else to the
// library's OAuth 2.0 handler untouched.
import { BadSignRequest, signCrafted } from './crafted_tokens.mjs';

const MAX_CONTROL_BODY_BYTES = 1 << 20;

function sendJson(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_CONTROL_BODY_BYTES) {
        reject(new BadSignRequest('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new BadSignRequest('body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

async function handleSign(req, res, keys) {
  try {
    sendJson(res, 200, { token: await signCrafted(keys, await readJson(req)) });
  } catch (error) {
    sendJson(res, error instanceof BadSignRequest ? 400 : 500, { error: String(error.message ?? error) });
  }
}

// options: {keys, jwksMaxAgeS, stats, log}; stats is mutated (counters).
export function withTestRoutes(oauthHandler, { keys, jwksMaxAgeS, stats, log }) {
  return (req, res) => {
    const path = new URL(req.url, 'http://127.0.0.1').pathname;
    res.on('finish', () => log(`${req.method} ${path} ${res.statusCode}`));
    if (req.method === 'GET' && path === '/_test/stats') return sendJson(res, 200, stats);
    if (req.method === 'POST' && path === '/_test/sign') return void handleSign(req, res, keys);
    if (req.method === 'GET' && path === '/jwks') {
      stats.jwks_requests += 1;
      res.setHeader('Cache-Control', `public, max-age=${jwksMaxAgeS}`);
    }
    if (req.method === 'POST' && path === '/token') stats.token_requests += 1;
    return oauthHandler(req, res);
  };
}
