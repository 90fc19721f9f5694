import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import { type Db, inTransaction, onPrimary } from '../../db/database.js';
import type { Actor } from '../../lib/actor.js';
import { randomToken, sha256 } from '../../lib/crypto.js';
import { conflict, notFound } from '../../lib/errors.js';
import { nowIso } from '../../lib/time.js';
import type { Calendar } from '../calendars/schemas.js';
import type { CalendarService } from '../calendars/service.js';
import type { EventService } from '../events/service.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { Resource } from '../resources/schemas.js';
import type { ResourcesService } from '../resources/service.js';
import { calendarFeed, resourceFeed } from './ics.js';
import { createFeedRepo, type FeedSubject } from './repo.js';
import type { FeedUrl } from './schemas.js';

/** How far back a feed reaches: clients keep what they already have; older time is not re-sent. */
const FEED_PAST_DAYS = 90;
/** How far ahead a resource feed lists reservations. */
const FEED_FUTURE_DAYS = 366;
const DAY_MS = 86_400_000;

/** A rendered feed and its entity tag (quoted SHA-256 of the body: the same state, the same tag). */
export interface RenderedFeed {
  body: string;
  etag: string;
}

export type FeedsService = ReturnType<typeof createFeedsService>;

/**
 * Subscription feeds (issue 26): a secret `.ics` URL of a calendar (its owner makes it)
 * or of a resource's reservations (staff: `writeCatalogue`). The token is shown once and
 * stored as its SHA-256; making a feed again replaces the URL, deleting it revokes it.
 * Reading a feed needs nothing but the URL; a resource feed answers while its organisation
 * is active, and ends when the member who made it leaves the organisation. What a URL opens
 * is read on the primary: a revoked or replaced URL stops at once, with a read replica too.
 */
export function createFeedsService(deps: {
  db: Db;
  config: Config;
  calendars: CalendarService;
  events: EventService;
  organisations: OrganisationsService;
  resources: ResourcesService;
}) {
  const { db, config, calendars, events, organisations, resources } = deps;
  const repo = createFeedRepo(db.kysely);
  const host = new URL(config.publicUrl).hostname;
  // A member who leaves takes no view of the organisation along (DECISIONS.md "Membership ends access").
  organisations.onMemberRemoved((trx, { organisationId, userId }) =>
    createFeedRepo(trx).removeMadeBy(organisationId, userId),
  );

  async function issue(actor: Actor, subject: FeedSubject): Promise<FeedUrl> {
    const token = randomToken();
    await inTransaction(db.kysely, (trx) =>
      createFeedRepo(trx).replace(subject, sha256(token), actor.userId, nowIso()),
    );
    return { url: `${config.publicUrl}/api/feeds/${token}.ics` };
  }

  async function revoke(subject: FeedSubject): Promise<void> {
    if (!(await repo.remove(subject))) throw notFound('Feed');
  }

  /** A parent resource of the actor's organisation they may manage (lanes share their parent's feed). */
  async function staffResource(actor: Actor, resourceId: number): Promise<FeedSubject> {
    const { organisationId } = await organisations.requireTenant(actor, { can: 'writeCatalogue' });
    const resource = await resources.findInOrganisation(organisationId, resourceId);
    if (!resource) throw notFound('Resource');
    if (resource.isCapacityChild)
      throw conflict('CONFLICT', "Capacity lanes are in their parent resource's feed; use the parent");
    return { resourceId, organisationId };
  }

  /**
   * What the feed URL `file` opens: its calendar, or its resource in the time zone of its
   * organisation while that is active; 404 for anything else.
   */
  async function opened(
    file: string,
  ): Promise<{ calendar: Calendar } | { resource: Resource; zone: string }> {
    const token = file.endsWith('.ics') ? file.slice(0, -4) : '';
    const feed = token ? await repo.findByHash(sha256(token)) : undefined;
    if (!feed) throw notFound('Feed');
    if (feed.calendarId !== null) {
      const calendar = await calendars.findForFeed(feed.calendarId);
      if (!calendar) throw notFound('Feed');
      return { calendar };
    }
    const resource =
      feed.resourceId !== null && feed.organisationId !== null
        ? await resources.findInOrganisation(feed.organisationId, feed.resourceId)
        : undefined;
    // An organisation that is not active serves no feed (its data is out of service).
    const organisation = resource && (await organisations.organisationById(resource.organisationId));
    const zone = organisation?.isActive ? organisation.timezone : undefined;
    if (!resource || zone === undefined) throw notFound('Feed');
    return { resource, zone };
  }

  const rendered = (body: string): RenderedFeed => ({
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
  });

  return {
    async createCalendarFeed(actor: Actor, calendarId: number): Promise<FeedUrl> {
      await calendars.requireOwned(actor, calendarId);
      return issue(actor, { calendarId });
    },

    async revokeCalendarFeed(actor: Actor, calendarId: number): Promise<void> {
      await calendars.requireOwned(actor, calendarId);
      await revoke({ calendarId });
    },

    async createResourceFeed(actor: Actor, resourceId: number): Promise<FeedUrl> {
      return issue(actor, await staffResource(actor, resourceId));
    },

    async revokeResourceFeed(actor: Actor, resourceId: number): Promise<void> {
      await revoke(await staffResource(actor, resourceId));
    },

    /** The feed of `<token>.ics`; 404 for anything else (a revoked or replaced token, a typo). */
    async render(file: string): Promise<RenderedFeed> {
      // The URL is the credential: what it opens is read on the primary, what is in it may come from the replica.
      const target = await onPrimary(() => opened(file));
      const nowMs = Date.now();
      const since = new Date(nowMs - FEED_PAST_DAYS * DAY_MS).toISOString();
      if ('calendar' in target) {
        const { calendar } = target;
        return rendered(calendarFeed(calendar, await events.listForFeed(calendar.id, since), host, nowMs));
      }
      const { resource, zone } = target;
      const until = new Date(nowMs + FEED_FUTURE_DAYS * DAY_MS).toISOString();
      const reservations = await repo.reservationsOf(
        resource.id,
        since,
        until,
        new Date(nowMs).toISOString(),
      );
      return rendered(resourceFeed(resource, zone, reservations, host, nowMs));
    },
  };
}
