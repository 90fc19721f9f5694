// Opaque, tamper-evident state tokens (page, sync and delta tokens), random
// identifiers, PKCE and signed ID tokens for the calendar provider emulators.
import {
  createHash,
  createHmac,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  randomUUID,
  sign,
  timingSafeEqual,
} from 'node:crypto';

/** Encodes JSON state as `<base64url payload>.<mac>`; a token from another emulator instance does not decode. */
export class StateCodec {
  private readonly key = randomBytes(32);

  encode(state: unknown): string {
    const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  decode(token: string | null | undefined): Record<string, unknown> | null {
    if (!token || token.length > 4096) return null;
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return null;
    const payload = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.mac(payload));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return null;
    try {
      const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
      return value && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : null;
    } catch {
      return null;
    }
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 22);
  }
}

// Bulk writes make tens of thousands of ids; one CSPRNG call per 64 KiB, not per id.
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomSlice(length: number): Buffer {
  if (length > 4096) return randomBytes(length);
  if (poolOffset + length > pool.length) {
    pool = randomBytes(65_536);
    poolOffset = 0;
  }
  const slice = pool.subarray(poolOffset, poolOffset + length);
  poolOffset += length;
  return slice;
}

/** Random characters from `alphabet`. */
export function randomChars(length: number, alphabet: string): string {
  const bytes = randomSlice(length);
  let out = '';
  for (let i = 0; i < length; i += 1) out += alphabet[bytes[i]! % alphabet.length];
  return out;
}

export const randomToken = (bytes = 32) => randomSlice(bytes).toString('base64url');
export const uuid = () => randomUUID();

/** RFC 7636: does `verifier` answer `challenge` under `method`? */
export function verifyPkce(verifier: string, challenge: string, method: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const computed = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  const a = Buffer.from(computed);
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An RS256 signing key (made on first use) with its JWKS. */
export class IdTokenSigner {
  readonly kid = randomBytes(10).toString('hex');
  private pair: { privateKey: KeyObject; publicKey: KeyObject } | undefined;

  private keys() {
    this.pair ??= generateKeyPairSync('rsa', { modulusLength: 2048 });
    return this.pair;
  }

  sign(claims: Record<string, unknown>): string {
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid: this.kid, typ: 'JWT' })).toString(
      'base64url',
    );
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const signature = sign('RSA-SHA256', Buffer.from(`${header}.${body}`), this.keys().privateKey).toString(
      'base64url',
    );
    return `${header}.${body}.${signature}`;
  }

  jwks(): { keys: Record<string, unknown>[] } {
    const jwk = this.keys().publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
    return { keys: [{ ...jwk, kid: this.kid, alg: 'RS256', use: 'sig' }] };
  }
}
