import type { Actor } from '../../lib/actor.js';
import { safeEqual, sha256 } from '../../lib/crypto.js';
import type { Event } from '../events/schemas.js';
import type { SyncQueue } from './jobs.js';
import type { SyncProvider } from './providers/port.js';
import type { SyncRepo } from './repo.js';
import type { GraphNotifications } from './schemas.js';

/** Longest channel id and secret a notification may carry. */
const NOTICE_FIELD_MAX = 256;

/** One push notification, whatever the provider's wire format. */
interface ChannelNotice {
  channelId: string | undefined;
  /** What we gave the provider to echo (A: channel token, B: clientState). */
  secret: string | undefined;
  /** The watched resource, when the provider names it (A). */
  resourceId?: string | undefined;
  /** The handshake right after a channel opens: valid, but there is nothing to fetch yet. */
  handshake?: boolean;
}

/**
 * What tells the sync that something changed: the providers' push notifications (each checked
 * against its channel's id and secret) and local writes in two-way calendars. Both only queue
 * jobs; requests never wait for a sync.
 */
export function createNotifications(deps: { repo: SyncRepo; queue: SyncQueue }) {
  const { repo, queue } = deps;

  /** Queues a pull of every calendar a valid notice names. False when none is valid. */
  async function accept(provider: SyncProvider, notices: readonly ChannelNotice[]): Promise<boolean> {
    const valid = new Set<number>();
    const changed = new Set<number>();
    for (const { channelId, secret, resourceId, handshake } of notices) {
      if (!channelId || !secret) continue;
      if (channelId.length > NOTICE_FIELD_MAX || secret.length > NOTICE_FIELD_MAX) continue;
      const mapping = await repo.findByChannel(provider, channelId);
      if (mapping?.state !== 'active' || !mapping.channelTokenHash) continue;
      if (!safeEqual(sha256(secret), mapping.channelTokenHash)) continue;
      if (mapping.channelResourceId && resourceId && resourceId !== mapping.channelResourceId) continue;
      valid.add(mapping.id);
      if (!handshake) changed.add(mapping.id);
    }
    for (const mappingId of changed) await queue.pull(mappingId);
    return valid.size > 0;
  }

  return {
    /** A's push notification. False: unknown channel or wrong token (the route answers 404). */
    notifyA(headers: {
      channelId: string | undefined;
      token: string | undefined;
      resourceId: string | undefined;
      resourceState: string | undefined;
    }): Promise<boolean> {
      return accept('calendar_provider_a', [
        {
          channelId: headers.channelId,
          secret: headers.token,
          resourceId: headers.resourceId,
          handshake: headers.resourceState === 'sync',
        },
      ]);
    },

    /** B's change notifications. False when none names a known subscription with its clientState. */
    notifyB(body: GraphNotifications): Promise<boolean> {
      return accept(
        'calendar_provider_b',
        body.value.map((notification) => ({
          channelId: notification.subscriptionId,
          secret: notification.clientState,
        })),
      );
    },

    /** Wired to the events service: a local write in a mapped, two-way calendar is pushed in a job. */
    async onLocalEventChanged(
      _actor: Actor,
      change: { type: 'created' | 'updated' | 'deleted'; event: Event },
    ): Promise<void> {
      const mapping = await repo.findActiveByLocalCalendar(change.event.calendarId);
      if (!mapping?.bidirectionalSync) return;
      const external = change.event.external;
      if (external && external.provider !== mapping.provider) return;
      if (change.type === 'deleted') {
        if (!external) return;
        await queue.push({
          mappingId: mapping.id,
          type: 'deleted',
          eventId: change.event.id,
          externalId: external.externalId,
          etag: external.etag,
        });
        return;
      }
      await queue.push({ mappingId: mapping.id, type: change.type, eventId: change.event.id });
    },
  };
}
