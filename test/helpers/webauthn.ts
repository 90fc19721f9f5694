import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** UP (user present), UV (user verified), AT (attested credential data follows). */
const FLAGS = { userPresent: 0x01, userVerified: 0x04, attested: 0x40 };

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
}

/** The clientDataJSON a browser builds for `challenge` on `origin`. */
function clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

export interface SoftwareAuthenticatorOptions {
  /** The RP id the authenticator signs for (the hash in its authenticator data). */
  rpId: string;
  /** The origin the "browser" puts in clientDataJSON. */
  origin: string;
}

/**
 * A passkey held in memory: an ECDSA P-256 key (ES256) answering WebAuthn registrations with
 * 'none' attestation and assertions, as a browser and platform authenticator would.
 */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  /** The signature counter; each assertion adds one. */
  counter = 0;
  userHandle: string | undefined;

  constructor(private readonly options: SoftwareAuthenticatorOptions) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private coseKey(): Uint8Array {
    const jwk = this.publicKey.export({ format: 'jwk' });
    const key = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    return isoCBOR.encode(key);
  }

  /** Answers `navigator.credentials.create` for the options the service handed out. */
  register(
    options: { challenge: string; user: { id: string } },
    overrides: Partial<SoftwareAuthenticatorOptions> = {},
  ) {
    const { rpId, origin } = { ...this.options, ...overrides };
    this.userHandle = options.user.id;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([FLAGS.userPresent | FLAGS.userVerified | FLAGS.attested]),
      counterBytes(this.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      this.coseKey(),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, never> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, never>()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientData('webauthn.create', options.challenge, origin)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** Answers `navigator.credentials.get` for `challenge`; the counter goes up by one unless told. */
  assert(
    challenge: string,
    overrides: Partial<SoftwareAuthenticatorOptions> & { counter?: number; userHandle?: string } = {},
  ) {
    const { rpId, origin } = { ...this.options, ...overrides };
    this.counter = overrides.counter ?? this.counter + 1;
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([FLAGS.userPresent | FLAGS.userVerified]),
      counterBytes(this.counter),
    ]);
    const clientDataJSON = clientData('webauthn.get', challenge, origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    const userHandle = overrides.userHandle ?? this.userHandle;
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle ? { userHandle } : {}),
      },
      clientExtensionResults: {},
    };
  }
}

/** The FRONTEND_URL of TEST_ENV as a relying party: its host name and its origin. */
export const TEST_RP: SoftwareAuthenticatorOptions = {
  rpId: 'frontend.test',
  origin: 'http://frontend.test',
};
