// The session of the signed-in pages outside the console (/approvals, /oauth/consent,
// /calendar-sync): people arrive there from an agent, an OAuth client or a calendar provider,
// sign in on the page itself, and the page acts as them. As in the console (console/session.ts)
// the access token lives in this page's memory only, the refresh token in its HttpOnly cookie,
// and the CSRF double-submit cookie goes into X-CSRF-Token for refresh and sign-out. Unlike the
// console, a refresh that cannot reach the service is an error the page shows (not "signed out"),
// and a call refused with 401 is retried once after a refresh.
import createClient from 'openapi-fetch';
import { ApiError, unwrap } from '../api/client.js';
import type { paths } from '../api/schema.js';

type LoginAnswer = paths['/api/auth/login/2fa']['post']['responses'][200]['content']['application/json'];
export type SignedInUser = LoginAnswer['user'];

let accessToken: string | null = null;
let user: SignedInUser | null = null;
let refreshing: Promise<boolean> | null = null;

/** Never from a cache, never following a redirect, cookies of this origin only. */
const options = {
  baseUrl: globalThis.location?.origin ?? '',
  cache: 'no-store',
  redirect: 'error',
  credentials: 'same-origin',
} as const;

/** The API without a session (sign-in, refresh, sign-out). */
const open = createClient<paths>(options);

/** The API as the signed-in person: their access token on every call. */
export const signedApi = createClient<paths>(options);
signedApi.use({
  onRequest({ request }) {
    if (accessToken) request.headers.set('authorization', `Bearer ${accessToken}`);
    return request;
  },
});

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

function keep(answer: LoginAnswer) {
  accessToken = answer.accessToken;
  user = answer.user;
}

/** Who is signed in on this page, if anyone. */
export const currentUser = () => user;
export const isSignedIn = () => accessToken !== null;

/**
 * A new access token from the refresh cookie: false when there is no session to resume; a lost
 * connection throws. One rotation at a time: a second concurrent one would look like a replay.
 */
export function resume(): Promise<boolean> {
  refreshing ??= (async () => {
    const csrf = csrfCookie();
    if (!csrf) return false;
    try {
      keep(await unwrap(open.POST('/api/auth/refresh', { headers: { 'x-csrf-token': csrf } })));
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 0) throw error;
      accessToken = null;
      user = null;
      return false;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** A password sign-in, or its second step: the login's challenge with a code or a recovery code. */
export type Credentials =
  | { email: string; password: string }
  | { challenge: string; code: string }
  | { challenge: string; recoveryCode: string };

/** Thrown by `signIn` when the account has two-factor on: the form asks for a code next. */
export class SecondStepRequired extends Error {
  constructor(readonly challenge: string) {
    super('Enter the code of your authenticator app.');
    this.name = 'SecondStepRequired';
  }
}

export async function signIn(credentials: Credentials): Promise<void> {
  if ('challenge' in credentials) {
    keep(await unwrap(open.POST('/api/auth/login/2fa', { body: credentials })));
    return;
  }
  const answer = await unwrap(open.POST('/api/auth/login', { body: credentials }));
  if ('twoFactorRequired' in answer) throw new SecondStepRequired(answer.challenge);
  keep(answer);
}

/** Signs out here and at the service; signed out or not there, the page forgets the session. */
export async function signOut(): Promise<void> {
  const csrf = csrfCookie() ?? '';
  accessToken = null;
  user = null;
  try {
    await open.POST('/api/auth/logout', { headers: { 'x-csrf-token': csrf } });
  } catch {
    // Whoever signs in next replaces the cookies anyway.
  }
}

/** Thrown by `asSignedIn` when there is no session (any more): the page shows its sign-in. */
export class SignedOut extends Error {
  constructor() {
    super('Sign in to continue.');
    this.name = 'SignedOut';
  }
}

/**
 * Runs a call as the signed-in person. Without a token the session is resumed first; a 401
 * (an expired or revoked token) resumes it once and runs the call again.
 */
export async function asSignedIn<T>(call: () => Promise<T>): Promise<T> {
  if (!accessToken && !(await resume())) throw new SignedOut();
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    accessToken = null;
    if (!(await resume())) throw new SignedOut();
    return call();
  }
}

const NETWORK = 'The service could not be reached. Check your connection and try again.';

/** The service's own message for a refusal; words for a lost connection or a page fault. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.status === 0 ? NETWORK : error.message;
  return 'Something went wrong on this page. Reload it to try again.';
}

/** As `messageOf`, but a refused request names each bad parameter (`redirect_uri: ...`). */
export function detailedMessageOf(error: unknown): string {
  if (error instanceof ApiError && error.status !== 0) {
    const lines = error.details
      .filter((detail) => typeof detail?.message === 'string')
      .map((detail) =>
        `${(detail.path ?? '').replace(/^(query|body|querystring)\./, '')} ${detail.message}`.trim(),
      );
    if (lines.length > 0) return lines.join('; ');
  }
  return messageOf(error);
}
