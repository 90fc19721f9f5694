// The account-security records as the console reads them (from the generated schema), and the
// calls the security screens share.
import { unwrap } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { authed } from '../session.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Get<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? Json<R> : never;

export type SignedInSession = Get<'/api/auth/sessions'>[number];
export type Passkey = Get<'/api/auth/passkeys'>[number];
export type ReceivedInvitation = Get<'/api/organisations/invitations'>[number];
export type TwoFactorSetup =
  paths['/api/auth/2fa/setup']['post']['responses'][200]['content']['application/json'];

export const meQuery = { queryKey: ['me'], queryFn: () => unwrap(authed.GET('/api/auth/me')) };

/** An answer without a body (202, 204) as a value `unwrap` accepts. */
export const noBody = <T extends { response: Response }>(result: T) => ({
  ...result,
  data: result.response.ok ? {} : undefined,
});

/** Mails the verification link again (at most 5 an hour). */
export const resendVerification = () => unwrap(authed.POST('/api/auth/verify-email/resend').then(noBody));

/** The first of `names` whose pattern the User-Agent matches (order matters: Edge says "Chrome" too). */
const BROWSERS: [RegExp, string][] = [
  [/Edg\//, 'Edge'],
  [/OPR\//, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/(Chrome|Chromium|CriOS)\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];
const SYSTEMS: [RegExp, string][] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/CrOS/, 'ChromeOS'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Linux/, 'Linux'],
];
const firstMatch = (names: [RegExp, string][], userAgent: string) =>
  names.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null;

/**
 * The device of a session in a few words, from its User-Agent: "Chrome on Android",
 * "Firefox on Windows"; the start of the raw string when neither is recognised.
 */
export function deviceOf(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown device';
  const browser = firstMatch(BROWSERS, userAgent);
  const system = firstMatch(SYSTEMS, userAgent);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? userAgent.slice(0, 60);
}
