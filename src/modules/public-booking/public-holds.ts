import { hmacSha256 } from '../../lib/crypto.js';
import { conflict } from '../../lib/errors.js';
import type { HoldInput } from '../reservations/schemas.js';
import {
  checkVisible,
  newLink,
  organisationOrThrow,
  type PublicBookingContext,
  withManageLink,
} from './context.js';
import { type PublicDryRun, publicDryRun, scheduleOf } from './public-views.js';
import type { BookedPublicReservation } from './schemas.js';

/** Live holds one customer email may keep through the public routes in an organisation. */
const PUBLIC_HOLDS_PER_EMAIL = 3;

/** 409 CONFLICT when the customer's email or client address keeps as many live public holds as allowed. */
async function checkHoldLimits(
  { config, reservations }: PublicBookingContext,
  organisationId: number,
  customerEmail: string,
  publicClientHash: string,
) {
  const limits = [
    { max: PUBLIC_HOLDS_PER_EMAIL, per: 'customer email', by: { customerEmail } },
    { max: config.publicHoldIpMax, per: 'IP address', by: { publicClientHash } },
  ];
  for (const { max, per, by } of limits)
    if ((await reservations.livePublicHolds(organisationId, by)) >= max)
      throw conflict(
        'CONFLICT',
        `At most ${max} live holds per ${per} in an organisation: confirm or release one first`,
      );
}

export async function holdBySlug(
  context: PublicBookingContext,
  slug: string,
  input: HoldInput,
  clientIp: string,
): Promise<BookedPublicReservation> {
  const { reservations, clientKey } = context;
  const org = await organisationOrThrow(context, slug);
  await checkVisible(context, org, input);
  const publicClientHash = hmacSha256(clientKey, clientIp);
  await checkHoldLimits(context, org.id, input.customer.email, publicClientHash);
  const { holdSeconds, ...booking } = input;
  const link = newLink(context);
  const held = await reservations.book(
    scheduleOf(org),
    booking,
    { source: 'public_slug', createdByUserId: null, manageLink: link, publicClientHash },
    { seconds: holdSeconds },
  );
  return withManageLink(context, held, link);
}

export async function dryRunHoldBySlug(
  context: PublicBookingContext,
  slug: string,
  input: HoldInput,
  clientIp: string,
): Promise<PublicDryRun> {
  const { reservations, clientKey } = context;
  const org = await organisationOrThrow(context, slug);
  await checkVisible(context, org, input);
  const { holdSeconds, ...booking } = input;
  const channel = { source: 'public_slug' as const, createdByUserId: null };
  return publicDryRun(
    await reservations.dryRunOf(async () => {
      await checkHoldLimits(context, org.id, input.customer.email, hmacSha256(clientKey, clientIp));
      return reservations.book(scheduleOf(org), booking, channel, { seconds: holdSeconds }, { dryRun: true });
    }),
  );
}
