// The console's sign-in session: the login answer's access token in memory only, the refresh
// token in its HttpOnly cookie, and the CSRF double-submit cookie read into X-CSRF-Token for
// the refresh and sign-out calls (README "Authentication in one paragraph").

import createClient from 'openapi-fetch';
import { useSyncExternalStore } from 'react';
import { api, unwrap } from '../api/client.js';
import type { paths } from '../api/schema.js';

type SessionAnswer = paths['/api/auth/login']['post']['responses'][200]['content']['application/json'];
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

let refreshing: Promise<Session | null> | null = null;
/** A new access token from the refresh cookie; null when there is no session to resume. */
export function refresh(): Promise<Session | null> {
  refreshing ??= (async () => {
    const csrf = csrfCookie();
    if (!csrf) return null;
    try {
      const answer = await unwrap(api.POST('/api/auth/refresh', { headers: { 'x-csrf-token': csrf } }));
      const session = fromAnswer(answer);
      set(session);
      return session;
    } catch {
      set(null);
      return null;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

export async function signIn(email: string, password: string) {
  set(fromAnswer(await unwrap(api.POST('/api/auth/login', { body: { email, password } }))));
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
});
