import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
} from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** 32 random bytes, base64url: API keys, agent keys, refresh tokens, public booking tokens. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Credentials are stored only as this digest; a database leak yields nothing usable. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH, SCRYPT);
  return [
    'scrypt',
    SCRYPT.N,
    SCRYPT.r,
    SCRYPT.p,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash to verify against when the account does not exist, so timing does not reveal it. */
export const DECOY_PASSWORD_HASH = await hashPassword(randomToken());

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** HMAC-SHA256, base64url: signatures of values the service hands out and checks later (OAuth `state`). */
export function hmacSha256(key: Buffer | string, value: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}

const SEALED_VERSION = 'v1';

/**
 * AES-256-GCM for secrets the service must read back (provider tokens at rest), keyed by
 * ENCRYPTION_KEY. `context` is authenticated but not stored: a ciphertext copied onto another
 * row (another user, another provider) does not decrypt there.
 * Format: `v1.<iv>.<ciphertext>.<tag>`, base64url parts.
 */
export function encryptSecret(key: Buffer, plaintext: string, context = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [SEALED_VERSION, iv, body, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The plaintext of `encryptSecret`; throws when the text was changed, or the key or context differ. */
export function decryptSecret(key: Buffer, sealed: string, context = ''): string {
  const [version, iv, body, tag, extra] = sealed.split('.');
  if (version !== SEALED_VERSION || !iv || body === undefined || !tag || extra !== undefined)
    throw new Error('Not a sealed secret');
  // A fixed tag length: a shortened tag would be easier to forge.
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
