// Which OAuth client is calling /token, and the claims it is entitled to.
// There is no client registry: any client_id is known, its secret is
// "<client_id>-secret", and its tenant is the client_id itself. A test picks
// the tenant by picking the client (e.g. "acme" -> tenant "acme").

export function secretFor(clientId) {
  return `${clientId}-secret`;
}

// RFC 6749 2.3.1: id and secret are form-encoded, then joined by ':' and base64'd.
function basicCredentials(header) {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return undefined;
  }
}

// The authenticated client of a token request ({id, tenant}), or undefined.
// Credentials come from HTTP Basic or from the client_id/client_secret form fields.
export function authenticateClient(req) {
  const body = req.body ?? {};
  const credentials = basicCredentials(req.headers.authorization) ?? {
    id: body.client_id,
    secret: body.client_secret,
  };
  if (typeof credentials.id !== 'string' || credentials.id === '') return undefined;
  if (credentials.secret !== secretFor(credentials.id)) return undefined;
  return { id: credentials.id, tenant: credentials.id };
}
