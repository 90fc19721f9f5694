import { randomUUID } from 'node:crypto';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { nowIso } from '../../lib/time.js';
import type { SyncProvider } from './providers/port.js';
import type { SyncRepo } from './repo.js';
import type { SyncContext, SyncLogger } from './sync-context.js';
import type { TokenKeeper } from './tokens.js';

/** Channels are renewed once they have less than this left. */
export const CHANNEL_RENEW_MARGIN_MS = 24 * 3_600_000;

export interface ChannelDeps {
  repo: SyncRepo;
  tokens: TokenKeeper;
  log: SyncLogger;
  /** Public URL of a provider's webhook route. */
  webhookUrl(provider: SyncProvider): string;
}

/** Renews the calendar's channel in place, when the provider can: answers whether it did. */
async function renewInPlace(
  { repo, tokens }: ChannelDeps,
  { mapping, port, connection }: SyncContext,
  now: string,
): Promise<boolean> {
  const renewed = await tokens.withAccess(connection, (access) =>
    port.renewWatch(
      access,
      {
        channelId: mapping.channelId!,
        resourceId: mapping.channelResourceId,
        expiresAt: mapping.channelExpiresAt!,
      },
      port.maxChannelTtlSeconds,
    ),
  );
  if (!renewed) return false;
  await repo.extendChannel(mapping.id, renewed.expiresAt, now);
  return true;
}

/** The calendar's channel as recorded before a new one was asked for; null when it had none. */
function previousChannel(mapping: SyncContext['mapping'], now: string) {
  return mapping.channelId
    ? {
        channelId: mapping.channelId,
        resourceId: mapping.channelResourceId,
        tokenHash: mapping.channelTokenHash ?? '',
        expiresAt: mapping.channelExpiresAt ?? now,
      }
    : null;
}

/**
 * Opens a new channel and records it; when the provider refuses, the calendar's previous
 * channel (if any) is recorded again.
 */
async function openChannel(
  { repo, tokens, webhookUrl }: ChannelDeps,
  { mapping, port, connection }: SyncContext,
  now: string,
): Promise<void> {
  const secret = randomToken();
  const channelId = randomUUID();
  const pending = {
    channelId,
    resourceId: null,
    tokenHash: sha256(secret),
    expiresAt: new Date(Date.now() + port.maxChannelTtlSeconds * 1000).toISOString(),
  };
  // A provider that takes our channel id may notify before watch() returns (A's `sync`
  // message): the channel is known from the start.
  if (port.clientChannelIds) await repo.setChannel(mapping.id, pending, now);
  let channel: Awaited<ReturnType<typeof port.watch>>;
  try {
    channel = await tokens.withAccess(connection, (access) =>
      port.watch(access, {
        calendarId: mapping.externalCalendarId,
        channelId,
        address: webhookUrl(mapping.provider),
        secret,
        ttlSeconds: port.maxChannelTtlSeconds,
      }),
    );
  } catch (error) {
    if (port.clientChannelIds) await repo.setChannel(mapping.id, previousChannel(mapping, now), nowIso());
    throw error;
  }
  await repo.setChannel(
    mapping.id,
    {
      ...pending,
      channelId: channel.channelId,
      resourceId: channel.resourceId,
      expiresAt: channel.expiresAt,
    },
    nowIso(),
  );
}

/** Stops the calendar's replaced channel, which would keep notifying until it expires (best effort). */
async function stopOldChannel({ tokens, log }: ChannelDeps, { mapping, port, connection }: SyncContext) {
  if (!mapping.channelId) return;
  const old = { channelId: mapping.channelId, resourceId: mapping.channelResourceId };
  await tokens
    .withAccess(connection, (access) => port.stopWatch(access, old))
    .catch((error) =>
      log.warn({ err: error, mappingId: mapping.id }, 'calendar sync: old channel not stopped'),
    );
}

/** A mapped calendar's push channel: opened, renewed in place where the provider can, or replaced. */
export function createChannels(deps: ChannelDeps) {
  /** Opens, renews or replaces the calendar's push channel; runs under the calendar's lease. */
  return async function ensureChannel(ctx: SyncContext): Promise<void> {
    const { mapping } = ctx;
    const expires = mapping.channelExpiresAt ? Date.parse(mapping.channelExpiresAt) : 0;
    if (mapping.channelId && expires - Date.now() > CHANNEL_RENEW_MARGIN_MS) return;
    const now = nowIso();
    if (mapping.channelId && expires > Date.now() && (await renewInPlace(deps, ctx, now))) return;
    await openChannel(deps, ctx, now);
    await stopOldChannel(deps, ctx);
  };
}
