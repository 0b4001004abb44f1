// Where a view reads its tenant's data: an admin key reads the tenant picked
// through /internal/v1 (scope admin); a tenant key reads its own through /v1.
import { enc } from '../api.js';

export function usagePath(ctx) {
  return ctx.role === 'admin' ? ['/internal/v1/usage', { tenant: ctx.tenant }] : ['/v1/usage', {}];
}

export function budgetsPath(ctx) {
  return ctx.role === 'admin' ? `/internal/v1/tenants/${enc(ctx.tenant)}/budgets` : '/v1/budgets';
}

export function auditPath(ctx) {
  return ctx.role === 'admin' ? ['/internal/v1/audit', { tenant: ctx.tenant }] : ['/v1/audit', {}];
}

export function tenantPath(ctx, rest) {
  return `/internal/v1/tenants/${enc(ctx.tenant)}/${rest}`;
}
