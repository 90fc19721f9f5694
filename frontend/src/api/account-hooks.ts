// The signed-in person's own resources, one hook each: the same key and call wherever it is read.
import { useQuery } from '@tanstack/react-query';
import { unwrap } from './client.js';
import { queryKeys } from './queryKeys.js';
import { authed } from './session.js';

/** The person's signed-in sessions. */
export const useSessions = () =>
  useQuery({ queryKey: queryKeys.sessions(), queryFn: () => unwrap(authed.GET('/api/auth/sessions')) });

/** The person's passkeys. */
export const usePasskeys = () =>
  useQuery({ queryKey: queryKeys.passkeys(), queryFn: () => unwrap(authed.GET('/api/auth/passkeys')) });

/** The invitations to organisations waiting for the person's answer. */
export const useInvitations = () =>
  useQuery({
    queryKey: queryKeys.invitations(),
    queryFn: () => unwrap(authed.GET('/api/organisations/invitations')),
  });

/** The person's calendar providers and their sync state. */
export const useCalendarSyncStatus = () =>
  useQuery({
    queryKey: queryKeys.calendarSync(),
    queryFn: () => unwrap(authed.GET('/api/calendar-sync/status')),
  });

/** What the service holds about the person (the access report). */
export const usePrivacyAccess = () =>
  useQuery({
    queryKey: queryKeys.privacyAccess(),
    queryFn: () => unwrap(authed.GET('/api/compliance/me/privacy/access')),
  });

/** The person's consents as they stand. */
export const usePrivacyConsents = () =>
  useQuery({
    queryKey: queryKeys.privacyConsents(),
    queryFn: () => unwrap(authed.GET('/api/compliance/me/privacy/consents')),
  });

/** The person's privacy requests, newest 50. */
export const usePrivacyRequests = () =>
  useQuery({
    queryKey: queryKeys.privacyRequests(),
    queryFn: () =>
      unwrap(authed.GET('/api/compliance/me/privacy/requests', { params: { query: { limit: 50 } } })),
  });
