#!/usr/bin/env node
// A real OAuth 2.0 identity provider for gateway tests (oauth2-mock-server),
// on 127.0.0.1 only. README.md beside this file has the endpoints and flags.
//
//   node tests/idp/idp_server.mjs --port 0 --keys /tmp/idp-keys.json --jwks-max-age 300
//
// Prints "listening on PORT" on stdout once it accepts connections; exits 0
// on SIGTERM or SIGINT after closing its sockets.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { OAuth2Issuer } from 'oauth2-mock-server';
import { loadOrCreateKeys } from './keys.mjs';
import { withTestRoutes } from './test_routes.mjs';
import { ClientCredentialsService } from './token_service.mjs';

const HOST = '127.0.0.1';
const SHUTDOWN_GRACE_MS = 2000;

function log(line) {
  process.stderr.write(`[idp] ${line}\n`);
}

function nonNegativeInt(name, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer, got '${text}'`);
  return value;
}

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '0' },
      keys: { type: 'string' },
      'jwks-max-age': { type: 'string', default: '300' },
    },
  });
  if (!values.keys) throw new Error('--keys FILE is required (created when missing)');
  return {
    port: nonNegativeInt('port', values.port),
    keyFile: values.keys,
    jwksMaxAgeS: nonNegativeInt('jwks-max-age', values['jwks-max-age']),
  };
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const keys = await loadOrCreateKeys(options.keyFile);

  const issuer = new OAuth2Issuer();
  for (const key of keys) await issuer.keys.add(key);
  const service = new ClientCredentialsService(issuer, new Map(keys.map((k) => [k.alg, k.kid])));
  const stats = { jwks_requests: 0, token_requests: 0 };
  const server = createServer(
    withTestRoutes(service.requestHandler, { keys, jwksMaxAgeS: options.jwksMaxAgeS, stats, log }),
  );

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, HOST, resolve);
  });
  const port = server.address().port;
  // The library would say "localhost"; the gateway is configured with the IP.
  issuer.url = `http://${HOST}:${port}`;

  const shutdown = (signal) => {
    log(`${signal}: closing`);
    server.close(() => process.exit(0));
    server.closeAllConnections();  // keep-alive sockets would hold close() open
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS).unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));

  log(`issuer ${issuer.url}, kids ${keys.map((k) => `${k.alg}=${k.kid}`).join(' ')}, jwks max-age ${options.jwksMaxAgeS}`);
  process.stdout.write(`listening on ${port}\n`);
}

main().catch((error) => {
  log(`fatal: ${error.stack ?? error}`);
  process.exit(1);
});
