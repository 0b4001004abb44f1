// The public description served at GET /v1/openapi.json: docs/openapi.yaml
// without the paths marked `x-internal: true` (the /internal/v1 surface, which
// the spec keeps out of the public contract), and without the components,
// tags only those paths used, and the info's `x-internal-note`. docs/openapi.yaml stays
// whole: the console's calls to /internal/v1 are checked against it.
// Shared by core/tools/openapi_embed.mjs (build time) and the tests.

export function publicDocument(doc) {
  const out = structuredClone(doc);
  if (out.info) delete out.info['x-internal-note'];
  for (const [template, item] of Object.entries(out.paths ?? {})) {
    if (item && item['x-internal'] === true) delete out.paths[template];
  }
  // Components reachable from what is left, followed through their own $refs.
  const reachable = new Set();
  const pending = [];
  const visit = (node) => {
    if (Array.isArray(node)) {
      node.forEach(visit);
    } else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')) {
          if (!reachable.has(value)) {
            reachable.add(value);
            pending.push(value);
          }
        } else {
          visit(value);
        }
      }
    }
  };
  const { components, ...rest } = out;
  visit(rest);
  while (pending.length) {
    const [, , section, name] = pending.pop().split('/');
    visit(components?.[section]?.[name]);
  }
  for (const [section, entries] of Object.entries(components ?? {})) {
    if (section === 'securitySchemes') continue;  // named by `security`, not by $ref
    for (const name of Object.keys(entries)) {
      if (!reachable.has(`#/components/${section}/${name}`)) delete entries[name];
    }
    if (Object.keys(entries).length === 0) delete components[section];
  }
  if (Array.isArray(out.tags)) {
    const used = new Set();
    for (const item of Object.values(out.paths)) {
      for (const op of Object.values(item)) for (const tag of op?.tags ?? []) used.add(tag);
    }
    out.tags = out.tags.filter((t) => used.has(t.name));
  }
  return out;
}
