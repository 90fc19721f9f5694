// The signed-in person's session, for the console (/app) and for the signed-in pages people reach
// from outside it (/approvals, /oauth/consent, /calendar-sync): the login answer's access token in
// this page's memory only, the refresh token in its HttpOnly cookie, and the CSRF double-submit
// cookie read into X-CSRF-Token for the refresh and sign-out calls (README "Authentication in one
// paragraph"). `authed` is the API as that person.
import createClient from 'openapi-fetch';
import { useSyncExternalStore } from 'react';
import { ApiError, api, unwrap } from './client.js';
import type { paths } from './schema.js';
import type { SessionAnswer, SignedInUser } from './types.js';

export interface Session {
  accessToken: string;
  /** When to refresh: a little before the token's own expiry. */
  refreshAt: number;
  user: SignedInUser;
}

let current: Session | null = null;
const listeners = new Set<() => void>();
function set(next: Session | null) {
  current = next;
  for (const listener of listeners) listener();
}
const keep = (answer: SessionAnswer) =>
  set({
    accessToken: answer.accessToken,
    refreshAt: Date.now() + Math.max(10, answer.expiresIn - 60) * 1000,
    user: answer.user,
  });

export function useSession(): Session | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
  );
}

/** Who is signed in on this page, if anyone. */
export const currentUser = () => current?.user ?? null;

function csrfCookie(): string | null {
  for (const part of document.cookie.split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== 'csrf_token') continue;
    try {
      return decodeURIComponent(part.slice(index + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

let refreshing: Promise<Session | null> | null = null;
/**
 * A new access token from the refresh cookie: null (signed out) when there is no session to
 * resume; a lost connection throws. One rotation at a time (a second concurrent one would look
 * like a replay); the reset runs after the assignment even when the call answers at once.
 */
function rotate(): Promise<Session | null> {
  refreshing ??= (async () => {
    const csrf = csrfCookie();
    if (!csrf) {
      set(null);
      return null;
    }
    try {
      keep(await unwrap(api.POST('/api/auth/refresh', { headers: { 'x-csrf-token': csrf } })));
    } catch (error) {
      if (error instanceof ApiError && error.status === 0) throw error;
      set(null);
    }
    return current;
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** The console's resume: any failure, a lost connection too, is "signed out" (its sign-in shows). */
export function refresh(): Promise<Session | null> {
  return rotate().catch(() => {
    set(null);
    return null;
  });
}

/** A signed-in page's resume: false when there is no session; a lost connection throws (the page says so). */
export const resume = async (): Promise<boolean> => (await rotate()) !== null;

/** A password sign-in, or its second step: the login's challenge with a code or a recovery code. */
export type Credentials =
  | { email: string; password: string }
  | { challenge: string; code: string }
  | { challenge: string; recoveryCode: string };

/** What the second step of a sign-in needs: the login's challenge (five minutes). */
export interface SecondStep {
  challenge: string;
}

/** Thrown by `signIn` when the account has two-factor on: the form asks for a code next. */
export class SecondStepRequired extends Error implements SecondStep {
  constructor(readonly challenge: string) {
    super('Enter the code of your authenticator app.');
    this.name = 'SecondStepRequired';
  }
}

/** Signs in, or throws SecondStepRequired when the account has two-factor on. */
export async function signIn(credentials: Credentials): Promise<void> {
  if ('challenge' in credentials) {
    keep(await unwrap(api.POST('/api/auth/login/2fa', { body: credentials })));
    return;
  }
  const answer = await unwrap(api.POST('/api/auth/login', { body: credentials }));
  if ('twoFactorRequired' in answer) throw new SecondStepRequired(answer.challenge);
  keep(answer);
}

/** The second step `signIn` asked for, as a value; any other failure is thrown again. */
export function secondStepOf(error: unknown): SecondStep {
  if (error instanceof SecondStepRequired) return { challenge: error.challenge };
  throw error;
}

/** Signs in with a passkey of this device (the browser asks which); SimpleWebAuthn loads only now. */
export async function signInWithPasskey() {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const options = await unwrap(api.POST('/api/auth/passkeys/login/options'));
  const response = await startAuthentication({ optionsJSON: options });
  keep(await unwrap(api.POST('/api/auth/passkeys/login/verify', { body: response })));
}

export async function register(name: string, email: string, password: string) {
  keep(await unwrap(api.POST('/api/auth/register', { body: { name, email, password } })));
}

/** Signs out here and at the service; signed out there or not, the page forgets the session. */
export async function signOut(): Promise<void> {
  const csrf = csrfCookie();
  set(null);
  if (!csrf) return;
  try {
    await api.POST('/api/auth/logout', { headers: { 'x-csrf-token': csrf } });
  } catch {
    // Whoever signs in next replaces the cookies anyway.
  }
}

/**
 * The API as the signed-in person: their token on every call, refreshed before it runs out. Never
 * from a cache, never following a redirect, cookies of this origin only.
 */
export const authed = createClient<paths>({
  baseUrl: globalThis.location?.origin ?? '',
  cache: 'no-store',
  redirect: 'error',
  credentials: 'same-origin',
});
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

/** Thrown by `asSignedIn` when there is no session (any more): the page shows its sign-in. */
export class SignedOut extends Error {
  constructor() {
    super('Sign in to continue.');
    this.name = 'SignedOut';
  }
}

/**
 * Runs a call of a signed-in page as the signed-in person. Without a token the session is resumed
 * first; a 401 (an expired or revoked token: `authed` has tried a refresh) runs the call once more
 * with the new token, or resumes the session first when that refresh found none.
 */
export async function asSignedIn<T>(call: () => Promise<T>): Promise<T> {
  if (!current && !(await resume())) throw new SignedOut();
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    if (!current && !(await resume())) throw new SignedOut();
    return call();
  }
}
