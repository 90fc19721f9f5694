import { type Db, inTransaction } from '../../db/database.js';
import { decryptSecret, encryptSecret } from '../../lib/crypto.js';
import { nowIso } from '../../lib/time.js';
import type { EventWriter } from '../outbox/service.js';
import { providerStatusOf } from './mappings.js';
import type { ProviderRegistry } from './providers/index.js';
import { GrantRevokedError, type SyncProvider, type TokenSet, UnauthorizedError } from './providers/port.js';
import { type ConnectionRow, createSyncRepo, type SealedTokens, type SyncRepo } from './repo.js';

/** Refresh an access token this long before it expires, so a call never starts with a dying one. */
const REFRESH_MARGIN_MS = 2 * 60_000;

/** The connection can no longer be used until its user connects again (visible in status). */
export class NeedsReconnectError extends Error {}

type TokenKind = 'access' | 'refresh' | 'verifier';

/** The authenticated context of a sealed value: a ciphertext copied to another row does not open. */
const context = (userId: number, provider: SyncProvider, kind: TokenKind) =>
  `calendar-sync:${userId}:${provider}:${kind}`;

export function sealToken(
  key: Buffer,
  userId: number,
  provider: SyncProvider,
  kind: TokenKind,
  value: string,
) {
  return encryptSecret(key, value, context(userId, provider, kind));
}

export function openToken(
  key: Buffer,
  userId: number,
  provider: SyncProvider,
  kind: TokenKind,
  sealed: string,
) {
  return decryptSecret(key, sealed, context(userId, provider, kind));
}

export function sealTokens(
  key: Buffer,
  userId: number,
  provider: SyncProvider,
  tokens: TokenSet,
  previousRefresh: string | null = null,
): SealedTokens {
  return {
    accessTokenEnc: sealToken(key, userId, provider, 'access', tokens.accessToken),
    // Providers that do not rotate refresh tokens send none on refresh: keep the one we have.
    refreshTokenEnc: tokens.refreshToken
      ? sealToken(key, userId, provider, 'refresh', tokens.refreshToken)
      : previousRefresh,
    accessTokenExpiresAt: tokens.expiresAt,
    scope: tokens.scope,
  };
}

/**
 * Access tokens of connections: opened on use, refreshed shortly before expiry (one refresh
 * per connection at a time in this process), refreshed once more when the provider answers
 * 401. A refused refresh token marks the connection `needs_reconnect` and stops there, so a
 * revoked grant never becomes a retry loop.
 */
export function createTokenKeeper(deps: {
  db: Db;
  key: Buffer;
  repo: SyncRepo;
  providers: ProviderRegistry;
  /** Writes calendar_sync.needs_reconnect with the change. */
  outbox: EventWriter;
}) {
  const { db, key, repo, providers, outbox } = deps;
  const inFlight = new Map<number, Promise<string>>();

  async function markNeedsReconnect(
    connection: ConnectionRow,
    code: string,
    message: string,
  ): Promise<never> {
    const now = nowIso();
    await inTransaction(db.kysely, async (trx) => {
      const r = createSyncRepo(trx);
      const marked = await r.markNeedsReconnect(connection.id, { code, message }, now);
      // Marked already (by another job or instance): it was announced then.
      if (!marked) return;
      const provider = marked.provider as SyncProvider;
      await outbox.append(trx, [
        {
          type: 'calendar_sync.needs_reconnect',
          occurredAt: now,
          organisationId: null,
          userId: marked.userId,
          data: providerStatusOf(provider, marked, await r.listMappings(marked.userId, 'active')),
        },
      ]);
    });
    throw new NeedsReconnectError(message);
  }

  /** `refused`: the token the provider just answered 401 to (a forced refresh). */
  async function refresh(connectionId: number, refused: string | null): Promise<string> {
    // Another job (or instance) may have refreshed meanwhile: read the row again.
    const connection = await repo.findConnectionById(connectionId);
    if (connection?.state !== 'connected') throw new NeedsReconnectError('Not connected');
    const provider = connection.provider as SyncProvider;
    const userId = connection.userId;
    const stored = openToken(key, userId, provider, 'access', connection.accessTokenEnc);
    if (refused === null ? !expiresSoon(connection) : stored !== refused) return stored;
    const port = providers[provider];
    if (!port) throw new NeedsReconnectError('Provider not configured');
    if (!connection.refreshTokenEnc)
      return markNeedsReconnect(
        connection,
        'TOKEN_EXPIRED',
        'The provider gave no refresh token; connect again',
      );
    const refreshToken = openToken(key, userId, provider, 'refresh', connection.refreshTokenEnc);
    let tokens: TokenSet;
    try {
      tokens = await port.refresh(refreshToken);
    } catch (error) {
      if (error instanceof GrantRevokedError)
        return markNeedsReconnect(
          connection,
          'GRANT_REVOKED',
          'The provider refused access (revoked or expired); connect the calendar again',
        );
      throw error;
    }
    await repo.updateTokens(
      connection.id,
      sealTokens(key, userId, provider, tokens, connection.refreshTokenEnc),
      nowIso(),
    );
    return tokens.accessToken;
  }

  function singleFlight(connectionId: number, refused: string | null): Promise<string> {
    const running = inFlight.get(connectionId);
    if (running) return running;
    const promise = refresh(connectionId, refused).finally(() => inFlight.delete(connectionId));
    inFlight.set(connectionId, promise);
    return promise;
  }

  const expiresSoon = (connection: ConnectionRow) =>
    connection.accessTokenExpiresAt !== null &&
    Date.parse(connection.accessTokenExpiresAt) - Date.now() < REFRESH_MARGIN_MS;

  async function accessToken(connection: ConnectionRow): Promise<string> {
    if (connection.state !== 'connected') throw new NeedsReconnectError('Not connected');
    if (!expiresSoon(connection))
      return openToken(
        key,
        connection.userId,
        connection.provider as SyncProvider,
        'access',
        connection.accessTokenEnc,
      );
    return singleFlight(connection.id, null);
  }

  return {
    accessToken,
    markNeedsReconnect,

    /** Runs `call` with a live access token; a 401 gets one refresh and one more try. */
    async withAccess<T>(connection: ConnectionRow, call: (token: string) => Promise<T>): Promise<T> {
      const token = await accessToken(connection);
      try {
        return await call(token);
      } catch (error) {
        if (!(error instanceof UnauthorizedError)) throw error;
      }
      const fresh = await singleFlight(connection.id, token);
      try {
        return await call(fresh);
      } catch (error) {
        if (error instanceof UnauthorizedError)
          return markNeedsReconnect(
            connection,
            'UNAUTHORIZED',
            'The provider refused our access; connect again',
          );
        throw error;
      }
    },
  };
}

export type TokenKeeper = ReturnType<typeof createTokenKeeper>;
