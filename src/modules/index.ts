import { agentsModule } from './agents/module.js';
import { approvalsModule } from './approvals/module.js';
import { authModule } from './auth/module.js';
import { automationModule } from './automation/module.js';
import { availabilityModule } from './availability/module.js';
import { bookingCalendarModule } from './booking-calendar/module.js';
import { calendarSyncModule } from './calendar-sync/module.js';
import { calendarsModule } from './calendars/module.js';
import { eventsModule } from './events/module.js';
import { feedsModule } from './feeds/module.js';
import { householdModule } from './household/module.js';
import { idempotencyModule } from './idempotency/module.js';
import { mailModule } from './mail/module.js';
import { oauthModule } from './oauth/module.js';
import { organisationsModule } from './organisations/module.js';
import { outboxModule } from './outbox/module.js';
import { paymentsModule } from './payments/module.js';
import { platformModule } from './platform/module.js';
import { privacyModule } from './privacy/module.js';
import { publicBookingModule } from './public-booking/module.js';
import { reservationsModule } from './reservations/module.js';
import { resourceTypesModule } from './resource-types/module.js';
import { resourcesModule } from './resources/module.js';
import { routinesModule } from './routines/module.js';
import { tasksModule } from './tasks/module.js';
import { timeModule } from './time/module.js';
import { userGroupsModule } from './user-groups/module.js';
import { waitlistModule } from './waitlist/module.js';
import { webhooksModule } from './webhooks/module.js';

/**
 * Every module of the app, the one list: app.ts registers their routes in this order, the
 * service registry builds their services, src/catalogue.ts derives the action catalogue
 * from their tools, src/privacy-declarations.ts takes their privacy declarations and the
 * migrator their migrations. The order is the privacy export's (the account first);
 * erasure runs it backwards, so what refers to something is erased before what it refers
 * to (events before calendars, every module before the user row itself). A module without
 * a privacy declaration may stand anywhere.
 */
export const MODULES = [
  authModule,
  organisationsModule,
  resourcesModule,
  reservationsModule,
  waitlistModule,
  idempotencyModule,
  calendarsModule,
  eventsModule,
  userGroupsModule,
  tasksModule,
  routinesModule,
  householdModule,
  automationModule,
  calendarSyncModule,
  agentsModule,
  approvalsModule,
  oauthModule,
  privacyModule,
  platformModule,
  paymentsModule,
  resourceTypesModule,
  availabilityModule,
  publicBookingModule,
  outboxModule,
  mailModule,
  webhooksModule,
  timeModule,
  feedsModule,
  bookingCalendarModule,
] as const;
