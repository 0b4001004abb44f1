// oauth2-mock-server's OAuth2Service (it serves /token, /jwks and discovery),
// narrowed to what a gateway test needs from /token: the client_credentials
// grant, a real client check, claims derived from the client, the audience
// the client asks for, and the signing algorithm the client asks for.
import { AssertionError } from 'node:assert';
import { OAuth2Service } from 'oauth2-mock-server';
import { authenticateClient } from './clients.mjs';

export const DEFAULT_AUDIENCE = 'modelgw';
const DEFAULT_ALG = 'RS256';

// The first form value given: a string, or an array when the field was repeated.
function firstGiven(...values) {
  return values.find((v) => typeof v === 'string' || Array.isArray(v));
}

export class ClientCredentialsService extends OAuth2Service {
  #kidByAlg;

  // kidByAlg: Map from "RS256"/"ES256" to the kid of the key that signs with it.
  constructor(issuer, kidByAlg) {
    super(issuer);
    this.#kidByAlg = kidByAlg;
    // The library has no client authentication; a refused client is marked in
    // buildToken and answered here, as RFC 6749 5.2 says: 401 invalid_client.
    this.on('beforeResponse', (response, req) => {
      if (!req.clientRejected) return;
      response.statusCode = 401;
      response.body = { error: 'invalid_client', error_description: 'client authentication failed' };
    });
  }

  // Called by the library's /token handler once the form is parsed and the
  // grant type is known; `transform` sets the grant's own claims (scope, aud).
  async buildToken(req, expiresIn, transform) {
    const body = req.body;
    if (body.grant_type !== 'client_credentials') {
      throw new AssertionError({ message: 'this test IdP issues tokens for grant_type=client_credentials only' });
    }
    const client = authenticateClient(req);
    if (client === undefined) {
      req.clientRejected = true;
      return '';  // never sent: beforeResponse replaces the whole answer
    }
    const alg = body.alg ?? DEFAULT_ALG;
    const kid = this.#kidByAlg.get(alg);
    if (kid === undefined) {
      throw new AssertionError({ message: `unsupported alg '${alg}': use ${[...this.#kidByAlg.keys()].join(' or ')}` });
    }
    // Auth0 names it `audience`, RFC 8707 `resource`, the library `aud`.
    const audience = firstGiven(body.audience, body.resource, body.aud) ?? DEFAULT_AUDIENCE;
    return await this.issuer.buildToken({
      kid,
      expiresIn,
      scopesOrTransform: (header, payload) => {
        if (typeof transform === 'function') transform(header, payload);
        if (payload.scope === undefined) delete payload.scope;
        Object.assign(payload, { sub: client.id, client_id: client.id, tenant: client.tenant, aud: audience });
      },
    });
  }
}
