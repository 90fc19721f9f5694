/**
 * OAuth protocol errors of the token endpoint (RFC 6749 §5.2, RFC 8707 §2), answered
 * as `{error, error_description}`, never the service's error envelope. The
 * authorization endpoint has none: its request errors are 400 VALIDATION_FAILED, and
 * only the consent decision (`access_denied`) goes back to the client.
 * `temporarily_unavailable` (503 with Retry-After, the database unreachable) borrows the
 * authorization endpoint's code of RFC 6749 §4.1.2.1: §5.2 has none for it.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'server_error'
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** 400, or 401 for invalid_client (RFC 6749 §5.2). */
    readonly status: 400 | 401 | 429 | 500 | 503 = error === 'invalid_client' ? 401 : 400,
    /** For temporarily_unavailable: when the client may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
export const invalidClient = (description: string) => new OAuthError('invalid_client', description);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
export const invalidTarget = (description: string) => new OAuthError('invalid_target', description);
