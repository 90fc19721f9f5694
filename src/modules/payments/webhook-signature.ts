import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header the payment provider signs every webhook delivery in. */
export const PAYMENT_SIGNATURE_HEADER = 'payment-signature';

/** How old (or how far ahead) a signed delivery may be: 5 minutes. */
export const PAYMENT_SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * `ok`: signed with the secret within the tolerance. `malformed`: no header, or not
 * `t=<unix seconds>,v1=<64 hex>[,v1=...]`. `mismatch`: no `v1` entry is the signature of this
 * body. `stale`: authentic, but its timestamp is outside the tolerance (a replayed capture).
 */
export type PaymentSignatureOutcome = 'ok' | 'malformed' | 'stale' | 'mismatch';

const MAX_HEADER_LENGTH = 2048;
const TIMESTAMP = /^\d{1,12}$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * Checks `Payment-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 * Several `v1` entries may be present (the provider signs with the old and the new secret
 * while one is rotated); any one matching is enough. Entries of other schemes are ignored.
 * The signature is checked before the timestamp, so only an authentic delivery is called
 * stale; the comparison is constant-time. `rawBody` must be the bytes as received: a
 * re-serialised JSON body does not verify.
 */
export function verifyPaymentSignature(
  header: string | undefined,
  rawBody: string | Uint8Array,
  secret: string,
  nowSeconds: number,
  toleranceSeconds = PAYMENT_SIGNATURE_TOLERANCE_SECONDS,
): PaymentSignatureOutcome {
  if (!header || header.length > MAX_HEADER_LENGTH) return 'malformed';
  let timestamp: string | undefined;
  const signatures: Buffer[] = [];
  for (const entry of header.split(',')) {
    const separator = entry.indexOf('=');
    if (separator <= 0) return 'malformed';
    const scheme = entry.slice(0, separator).trim();
    const value = entry.slice(separator + 1).trim();
    if (scheme === 't') {
      if (timestamp !== undefined || !TIMESTAMP.test(value)) return 'malformed';
      timestamp = value;
    } else if (scheme === 'v1') {
      if (!HEX_SHA256.test(value)) return 'malformed';
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp === undefined || signatures.length === 0) return 'malformed';

  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  // Every entry is compared, so the time taken does not tell which one matched.
  let matched = false;
  for (const signature of signatures) matched = timingSafeEqual(signature, expected) || matched;
  if (!matched) return 'mismatch';
  return Math.abs(nowSeconds - Number(timestamp)) <= toleranceSeconds ? 'ok' : 'stale';
}
