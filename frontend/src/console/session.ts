// The console's sign-in session: the login answer's access token in memory only, the refresh
// token in its HttpOnly cookie, and the CSRF double-submit cookie read into X-CSRF-Token for
// the refresh and sign-out calls (README "Authentication in one paragraph").

import createClient from 'openapi-fetch';
import { useSyncExternalStore } from 'react';
import { api, unwrap } from '../api/client.js';
import type { paths } from '../api/schema.js';

type SessionAnswer = paths['/api/auth/register']['post']['responses'][201]['content']['application/json'];
export interface Session {
  accessToken: string;
  /** When to refresh: a little before the token's own expiry. */
  refreshAt: number;
  user: SessionAnswer['user'];
}

let current: Session | null = null;
const listeners = new Set<() => void>();
function set(next: Session | null) {
  current = next;
  for (const listener of listeners) listener();
}

export function useSession(): Session | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}

const fromAnswer = (answer: SessionAnswer): Session => ({
  accessToken: answer.accessToken,
  refreshAt: Date.now() + Math.max(10, answer.expiresIn - 60) * 1000,
  user: answer.user,
});

function csrfCookie(): string | null {
  const found = document.cookie.split('; ').find((c) => c.startsWith('csrf_token='));
  return found ? decodeURIComponent(found.slice('csrf_token='.length)) : null;
}

/** A new access token from the refresh cookie; null (signed out) when there is no session to resume. */
async function resume(): Promise<Session | null> {
  const csrf = csrfCookie();
  if (!csrf) {
    set(null);
    return null;
  }
  try {
    const answer = await unwrap(api.POST('/api/auth/refresh', { headers: { 'x-csrf-token': csrf } }));
    const session = fromAnswer(answer);
    set(session);
    return session;
  } catch {
    set(null);
    return null;
  }
}

let refreshing: Promise<Session | null> | null = null;
/**
 * One refresh at a time (a second concurrent one would look like a replay). The reset runs after
 * the assignment even when `resume` answers at once.
 */
export function refresh(): Promise<Session | null> {
  refreshing ??= resume().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** What the second step of a sign-in needs: the login's challenge (five minutes). */
export interface SecondStep {
  challenge: string;
}

/** Signs in, or answers the second step when the account has two-factor on. */
export async function signIn(email: string, password: string): Promise<SecondStep | null> {
  const answer = await unwrap(api.POST('/api/auth/login', { body: { email, password } }));
  if ('twoFactorRequired' in answer) return { challenge: answer.challenge };
  set(fromAnswer(answer));
  return null;
}

/** The second step: a code of the authenticator app, or one of the recovery codes. */
export async function signInSecondStep(step: SecondStep, proof: { code: string } | { recoveryCode: string }) {
  set(
    fromAnswer(
      await unwrap(api.POST('/api/auth/login/2fa', { body: { challenge: step.challenge, ...proof } })),
    ),
  );
}

/** Signs in with a passkey of this device (the browser asks which); SimpleWebAuthn loads only now. */
export async function signInWithPasskey() {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const options = await unwrap(api.POST('/api/auth/passkeys/login/options'));
  const response = await startAuthentication({ optionsJSON: options });
  set(fromAnswer(await unwrap(api.POST('/api/auth/passkeys/login/verify', { body: response }))));
}

export async function register(name: string, email: string, password: string) {
  set(fromAnswer(await unwrap(api.POST('/api/auth/register', { body: { name, email, password } }))));
}

export async function signOut() {
  const csrf = csrfCookie();
  set(null);
  if (csrf) await api.POST('/api/auth/logout', { headers: { 'x-csrf-token': csrf } });
}

/** The API as the signed-in person: their token on every call, refreshed before it runs out. */
export const authed = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '' });
authed.use({
  async onRequest({ request }) {
    let session = current;
    if (session && Date.now() >= session.refreshAt) session = await refresh();
    if (session) request.headers.set('authorization', `Bearer ${session.accessToken}`);
    return request;
  },
  // A session ended elsewhere (another device, a password reset) fails its next call: the
  // refresh cookie went with it, so the console falls back to its sign-in.
  async onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('authorization')) await refresh();
    return response;
  },
});
