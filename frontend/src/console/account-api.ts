// The API records of the account screens (profile, payments, calendar sync, privacy), from the
// generated schema, and the few calls those screens share.
import type { paths } from '../api/schema.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Get<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? Json<R> : never;

export type Me = Get<'/api/auth/me'>;
export type OrganisationDetail = Get<'/api/organisations/{id}'>;
export type SchedulePolicy = NonNullable<OrganisationDetail['schedulePolicy']>;
export type ResolvedSchedule = Get<'/api/resources/{id}/schedule'>;
export type PaymentStatus = Get<'/api/organisations/{id}/payment/status'>;
export type SyncStatus = Get<'/api/calendar-sync/status'>;
export type SyncProvider = SyncStatus['providers'][number];
export type ProviderName = SyncProvider['provider'];
export type AccessReport = Get<'/api/compliance/me/privacy/access'>;
export type PrivacyRequest = Get<'/api/compliance/me/privacy/requests'>['items'][number];
export type Consent = Get<'/api/compliance/me/privacy/consents'>[number];
export type ConsentType = Consent['consentType'];

/** Whether a role may change the organisation's profile, schedule, colour and payment connection. */
export const isAdmin = (role: string | undefined) => role === 'OWNER' || role === 'ADMIN';

/** Monday first, as the console's week view; `dayOfWeek` is the API's (0 = Sunday). */
export const WEEK = [
  { dayOfWeek: 1, name: 'Monday' },
  { dayOfWeek: 2, name: 'Tuesday' },
  { dayOfWeek: 3, name: 'Wednesday' },
  { dayOfWeek: 4, name: 'Thursday' },
  { dayOfWeek: 5, name: 'Friday' },
  { dayOfWeek: 6, name: 'Saturday' },
  { dayOfWeek: 0, name: 'Sunday' },
] as const;

export const PROVIDER_NAMES: Record<ProviderName, string> = {
  calendar_provider_a: 'Calendar provider A',
  calendar_provider_b: 'Calendar provider B',
};

/** The file name of a Content-Disposition header, or `fallback`. */
export function attachmentName(header: string | null, fallback: string): string {
  const match = header ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header) : null;
  return match ? decodeURIComponent(match[1]!) : fallback;
}

/** Hands `blob` to the browser as a download named `name` (no navigation, nothing inline). */
export function download(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser time to start reading the blob before it goes.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
