// The agents' and approvals' records as the console reads them, from the generated schema, and
// the small pure helpers the screens share (money in major units, the person's zone).
import { unwrap } from '../api/client.js';
import type { paths } from '../api/schema.js';
import { minorPerMajor } from './records.js';
import { authed } from './session.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<P extends keyof paths, M extends 'get' | 'post' | 'put', C extends number = 200> = paths[P] extends {
  [K in M]: { responses: { [S in C]: infer R } };
}
  ? Json<R>
  : never;
type Body<P extends keyof paths, M extends 'post' | 'put'> = paths[P] extends {
  [K in M]: { requestBody?: infer B };
}
  ? Json<NonNullable<B>>
  : never;

export type Agent = Ok<'/api/agents/{id}', 'get'>;
export type AgentStatus = Agent['status'];
export type Permission = Agent['permissions'][number];
export type Catalog = Ok<'/api/agents/catalog', 'get'>;
export type CatalogAction = Catalog['actions'][number];
export type PermissionGroup = Ok<'/api/agents/permission-groups', 'get'>[number];
export type PresetId = NonNullable<Body<'/api/agents', 'post'>['permissionGroupId']>;
export type PermissionsBody = Body<'/api/agents/{id}/permissions', 'put'>;
export type AgentKey = Ok<'/api/agents/{id}/keys', 'get'>[number];
export type CreatedKey = Ok<'/api/agents/{id}/keys', 'post', 201>;
export type Policy = Ok<'/api/agents/{id}/policy', 'get'>;
export type PolicyBody = Body<'/api/agents/{id}/policy', 'put'>;
export type ApprovalMode = Policy['requireApproval'];
export type ActivityItem = Ok<'/api/agents/{id}/activity', 'get'>['items'][number];
export type Approval = Ok<'/api/approvals/{id}', 'get'>;
export type ApprovalStatus = Approval['status'];

export const APPROVAL_STATUSES: ApprovalStatus[] = [
  'pending',
  'approved',
  'executed',
  'failed',
  'denied',
  'expired',
];

export const approvalStatusWords: Record<ApprovalStatus, string> = {
  pending: 'waiting for you',
  approved: 'approved, running',
  executed: 'executed',
  failed: 'failed',
  denied: 'denied',
  expired: 'expired',
};

export const agentStatusWords: Record<AgentStatus, string> = {
  active: 'active',
  paused: 'paused',
  disabled: 'disabled',
};

export const agentsQuery = {
  queryKey: ['agents'],
  queryFn: () => unwrap(authed.GET('/api/agents')),
  // Each agent's lastUsedAt moves while the person is away.
  staleTime: 0,
};
export const catalogQuery = {
  queryKey: ['agents', 'catalog'],
  queryFn: () => unwrap(authed.GET('/api/agents/catalog')),
  staleTime: 60_000,
};
export const groupsQuery = {
  queryKey: ['agents', 'permission-groups'],
  queryFn: () => unwrap(authed.GET('/api/agents/permission-groups')),
  staleTime: 60_000,
};

/** The person's own zone: the browser's (the API keeps no zone for a person). */
export const personZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * An amount typed in major units as the API wants it: minor units; null when empty; the text
 * itself when it is no amount (the API then refuses it on that field, in words).
 */
export function minorOf(text: string, currency: string): number | string | null {
  if (text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? Math.round(value * minorPerMajor(currency)) : text;
}

/** Minor units shown in major units for a form field ("" for none). */
export const majorOf = (minor: number | null, currency: string) =>
  minor == null ? '' : String(minor / minorPerMajor(currency));

/** A count typed in a field: a number when it reads as one, else the text; null when empty. */
export function countOf(text: string): number | string | null {
  if (text.trim() === '') return null;
  return Number.isFinite(Number(text)) ? Number(text) : text;
}

/** The part of an action key that names its area: "calendar.events.read" is "calendar". */
export const areaOf = (key: string) => key.split('.')[0] ?? key;

/** The MCP tool name of an action key. */
export const toolNameOf = (key: string) => key.replaceAll('.', '_');
