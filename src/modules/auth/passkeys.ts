import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { conflict, invalidField, notFound, unauthenticated } from '../../lib/errors.js';
import { isoAfterSeconds, nowIso } from '../../lib/time.js';
import { createPasskeyRepo } from './passkeys-repo.js';
import { createUserRepo } from './repo.js';
import type { User } from './schemas.js';
import type { AuthenticationOptions, Passkey, RegistrationOptions } from './security-schemas.js';
import type { IssuedSession, SignInContext } from './sessions.js';
import type { StartSession } from './two-factor.js';

/** How long a browser has to answer a challenge (the options' timeout is the same). */
const CHALLENGE_TTL_SECONDS = 5 * 60;

export type Passkeys = ReturnType<typeof createPasskeys>;

/** The user handle a passkey carries: the account id, which names nobody outside the service. */
const userHandleOf = (userId: number) => new TextEncoder().encode(String(userId));
const userHandleText = (userId: number) => Buffer.from(userHandleOf(userId)).toString('base64url');

/** The challenge inside a response's clientDataJSON; null when it cannot be read. */
function challengeIn(clientDataJSON: string): string | null {
  try {
    return decodeClientDataJSON(clientDataJSON).challenge ?? null;
  } catch {
    return null;
  }
}

/**
 * Passkeys (WebAuthn discoverable credentials, issue 48): register while signed in, list,
 * delete, and sign in with one. The relying party is FRONTEND_URL: its hostname is the RP
 * id and its origin the only origin accepted. Challenges live in the database (every
 * instance sees them), once each, for five minutes; a registration's is bound to its person.
 * User verification is required: a passkey is something held and something known or
 * been, which is why its sign-in asks for no second step.
 */
export function createPasskeys({
  db,
  config,
  startSession,
}: {
  db: Db;
  config: Config;
  startSession: StartSession;
}) {
  const frontend = new URL(config.frontendUrl);
  const rpID = frontend.hostname;
  const expectedOrigin = frontend.origin;
  const repo = () => createPasskeyRepo(db.kysely);
  const refused = () => unauthenticated('The passkey was not accepted; try again');

  async function handOut(challenge: string, purpose: 'register' | 'login', userId: number | null) {
    const now = nowIso();
    await repo().insertChallenge({
      challenge,
      purpose,
      userId,
      expiresAt: isoAfterSeconds(CHALLENGE_TTL_SECONDS),
      now,
    });
  }

  return {
    async registrationOptions(person: User): Promise<RegistrationOptions> {
      const options = await generateRegistrationOptions({
        rpName: rpID,
        rpID,
        userName: person.email,
        userDisplayName: person.name,
        userID: userHandleOf(person.id),
        timeout: CHALLENGE_TTL_SECONDS * 1000,
        attestationType: 'none',
        excludeCredentials: await repo().credentialIdsOf(person.id),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      });
      await handOut(options.challenge, 'register', person.id);
      // SimpleWebAuthn types a descriptor's `type` as any string; it is always 'public-key'.
      return options as RegistrationOptions;
    },

    /** Verifies a new credential against a challenge handed to this person; 201 the passkey. */
    async register(person: User, response: RegistrationResponseJSON, name: string | null): Promise<Passkey> {
      const challenge = challengeIn(response.response.clientDataJSON);
      if (!challenge || !(await repo().consumeChallenge(challenge, 'register', person.id, nowIso())))
        throw invalidField('response', 'answers no registration challenge of yours that is still open');
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await verifyRegistrationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin,
          expectedRPID: rpID,
          requireUserVerification: true,
        });
      } catch (error) {
        throw invalidField('response', `is not a valid registration: ${(error as Error).message}`);
      }
      if (!verified.verified) throw invalidField('response', 'is not a valid registration');
      const { credential } = verified.registrationInfo;
      try {
        return await repo().insert({
          userId: person.id,
          credentialId: credential.id,
          publicKey: Buffer.from(credential.publicKey).toString('base64url'),
          counter: credential.counter,
          transports: response.response.transports,
          name,
          now: nowIso(),
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict('CONFLICT', 'This passkey is already registered');
        throw error;
      }
    },

    list(userId: number): Promise<Passkey[]> {
      return repo().listForUser(userId);
    },

    async remove(userId: number, id: number): Promise<void> {
      if (!(await repo().delete(userId, id))) throw notFound('Passkey');
    },

    /** Options for a sign-in with any passkey of this site (the browser asks which). */
    async loginOptions(): Promise<AuthenticationOptions> {
      const options = await generateAuthenticationOptions({
        rpID,
        timeout: CHALLENGE_TTL_SECONDS * 1000,
        userVerification: 'required',
      });
      await handOut(options.challenge, 'login', null);
      return options as AuthenticationOptions;
    },

    /**
     * Signs in with an assertion of a registered passkey over an open login challenge: 401
     * for an unknown passkey, one of another account than its user handle says, another
     * origin, a used or expired challenge, or a counter that went backwards.
     */
    async login(response: AuthenticationResponseJSON, context: SignInContext): Promise<IssuedSession> {
      const challenge = challengeIn(response.response.clientDataJSON);
      if (!challenge || !(await repo().consumeChallenge(challenge, 'login', null, nowIso()))) throw refused();
      const passkey = await repo().findByCredentialId(response.id);
      if (!passkey) throw refused();
      const { userHandle } = response.response;
      if (userHandle !== undefined && userHandle !== userHandleText(passkey.userId)) throw refused();
      const counter = Number(passkey.counter);
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin,
          expectedRPID: rpID,
          credential: {
            id: passkey.credentialId,
            publicKey: Buffer.from(passkey.publicKey, 'base64url'),
            counter,
            ...(passkey.transports ? { transports: JSON.parse(passkey.transports) as string[] } : {}),
          },
          requireUserVerification: true,
        });
      } catch {
        throw refused();
      }
      if (!verified.verified) throw refused();
      const { newCounter } = verified.authenticationInfo;
      if (!(await repo().recordUse(passkey.id, counter, newCounter, nowIso()))) throw refused();
      const user = await createUserRepo(db.kysely).findById(passkey.userId);
      if (!user) throw refused();
      return startSession(user, context);
    },
  };
}
