// Every TanStack Query key of the web app, one function per resource. A key is a prefix of the
// keys under it, so invalidating `reservations()` refreshes every list and week of reservations.
import type { ApprovalStatus } from './types.js';

export const queryKeys = {
  // The booking and manage pages (public).
  catalogue: (slug: string | null) => ['catalogue', slug] as const,
  /** Every free-times query: the booking page's and the console's. */
  availability: () => ['availability'] as const,
  publicAvailability: (slug: string, target: unknown, range: unknown) =>
    ['availability', slug, target, range] as const,
  staffAvailability: (typeId: number | undefined, target: string, day: string) =>
    ['availability', 'staff', typeId, target, day] as const,
  managed: (token: string) => ['managed', token] as const,
  waitlist: (token: string) => ['waitlist', token] as const,
  series: (token: string) => ['series', token] as const,

  // The signed-in person.
  me: () => ['me'] as const,
  sessions: () => ['sessions'] as const,
  passkeys: () => ['passkeys'] as const,
  invitations: () => ['invitations'] as const,
  verifyEmail: (token: string | undefined) => ['verify-email', token] as const,
  calendarSync: () => ['calendar-sync'] as const,
  privacyAccess: () => ['privacy', 'access'] as const,
  privacyConsents: () => ['privacy', 'consents'] as const,
  privacyConsentHistory: () => ['privacy', 'consent-history'] as const,
  privacyRequests: () => ['privacy', 'requests'] as const,

  // Organisations and their catalogue.
  organisations: () => ['organisations'] as const,
  members: (orgId: number) => ['members', orgId] as const,
  paymentStatus: (orgId: number) => ['payment-status', orgId] as const,
  resourceTypes: () => ['resource-types'] as const,
  /** Every resource list; with `orgId`, the list the organisation's schedule reads. */
  resources: (orgId?: number) =>
    orgId === undefined ? (['resources'] as const) : (['resources', orgId] as const),
  /** Every resolved schedule; with `resourceId`, that resource's. */
  resourceSchedule: (resourceId?: number) =>
    resourceId === undefined
      ? (['resource-schedule'] as const)
      : (['resource-schedule', resourceId] as const),

  /** Why each hour from `from` is or is not bookable on a type's resources or one resource. */
  explanations: (kind: 'type' | 'resource', id: number, from: string) =>
    ['explanations', kind, id, from] as const,

  // Reservations.
  reservation: (id: number) => ['reservation', id] as const,
  /** Every list and week of reservations. */
  reservations: () => ['reservations'] as const,
  reservationWeek: (orgId: number, query: unknown) => ['reservations', orgId, query] as const,
  reservationList: (orgId: number, query: unknown) => ['reservations', orgId, 'all', query] as const,
  reservationPages: (orgId: number, query: unknown) => ['reservations', orgId, 'pages', query] as const,
  /** A customer's attendance counts: under the lists, so a mark refreshes them. */
  attendanceCounts: (orgId: number, email: string) => ['reservations', orgId, 'attendance', email] as const,

  // Webhooks.
  webhooks: (orgId: number) => ['webhooks', orgId] as const,
  webhook: (orgId: number, webhookId: number) => ['webhook', orgId, webhookId] as const,
  deliveries: (orgId: number, webhookId: number) => ['deliveries', orgId, webhookId] as const,

  // Agents and approvals.
  /** The person's agents; a prefix of every agent query. */
  agents: () => ['agents'] as const,
  agentCatalog: () => ['agents', 'catalog'] as const,
  permissionGroups: () => ['agents', 'permission-groups'] as const,
  agent: (id: number) => ['agents', 'one', id] as const,
  agentKeys: (id: number) => ['agents', 'keys', id] as const,
  agentPolicy: (id: number) => ['agents', 'policy', id] as const,
  agentActivity: (id: number, actionKey: string, outcome: string) =>
    ['agents', 'activity', id, actionKey, outcome] as const,
  /** Every approvals list; with `status`, one list ('all' for every status). */
  approvals: (status?: ApprovalStatus | 'all') =>
    status === undefined ? (['approvals'] as const) : (['approvals', status] as const),
  approval: (id: number) => ['approval', id] as const,
};
