import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { JobQueue } from './jobs/queue.js';
import type { EphemeralStore } from './lib/ephemeral-store.js';
import type { Metrics } from './metrics.js';
import { createAgentService } from './modules/agents/service.js';
import { createAuthService } from './modules/auth/service.js';
import { createAutomationService } from './modules/automation/service.js';
import { createAvailabilityService } from './modules/availability/service.js';
import { createCalendarSyncService } from './modules/calendar-sync/service.js';
import { createCalendarService } from './modules/calendars/service.js';
import { createEventService } from './modules/events/service.js';
import { createHouseholdService } from './modules/household/service.js';
import { createOAuthService } from './modules/oauth/service.js';
import { createOrganisationsService } from './modules/organisations/service.js';
import { createPaymentsService } from './modules/payments/service.js';
import { createPlatformService } from './modules/platform/service.js';
import { createPrivacyService } from './modules/privacy/service.js';
import { createPublicBookingService } from './modules/public-booking/service.js';
import { createReservationsService } from './modules/reservations/service.js';
import { createResourceTypesService } from './modules/resource-types/service.js';
import { createResourcesService } from './modules/resources/service.js';
import { createRoutineService } from './modules/routines/service.js';
import { createTaskService } from './modules/tasks/service.js';
import { createUserGroupService } from './modules/user-groups/service.js';
import { PRIVACY_DECLARATIONS } from './privacy-declarations.js';

export interface ServiceDeps {
  db: Db;
  config: Config;
  store: EphemeralStore;
  metrics: Metrics;
  jobs: JobQueue;
  /** The app's logger, for background work that has no request to log through. */
  log?: FastifyBaseLogger;
}

/** Every domain service, built once per app; HTTP routes and MCP tools both call these. */
export function createServices(deps: ServiceDeps) {
  const calendars = createCalendarService(deps);
  const organisations = createOrganisationsService(deps);
  const resourceTypes = createResourceTypesService({ ...deps, organisations });
  const resources = createResourcesService({ ...deps, organisations, resourceTypes });
  const availability = createAvailabilityService({ ...deps, organisations, resourceTypes });
  const reservations = createReservationsService({
    ...deps,
    organisations,
    availability,
    resourceTypes,
    resources,
  });
  // Automation listens to event creation and task completion through these hooks (run after
  // the write commits), so neither module depends on automation.
  const events = createEventService({
    ...deps,
    calendars,
    onEventCreated: async (actor, event) => automation.onEventCreated(actor, event),
    // Calendar sync pushes local writes in two-way mapped calendars to the provider (in a job).
    onEventChanged: async (actor, change) => calendarSync.onLocalEventChanged(actor, change),
  });
  const tasks = createTaskService({
    ...deps,
    onTaskCompleted: async (actor, task) => automation.onTaskCompleted(actor, task),
  });
  const automation = createAutomationService({ ...deps, calendars, events, tasks });
  const calendarSync = createCalendarSyncService({ ...deps, calendars, events, automation });
  // Agents read the owner's calendars and groups: what a permission's scope may name.
  const userGroups = createUserGroupService({ ...deps, calendars });
  const agents = createAgentService({ ...deps, calendars, userGroups });
  const services = {
    // Every new user gets a default calendar, in the transaction that creates the user.
    auth: createAuthService({
      ...deps,
      onUserCreated: async (trx, user) => {
        await calendars.createDefaultCalendar(trx, user.id);
      },
    }),
    platform: createPlatformService(deps),
    organisations,
    resourceTypes,
    resources,
    availability,
    reservations,
    publicBooking: createPublicBookingService({
      ...deps,
      availability,
      reservations,
      resourceTypes,
      resources,
    }),
    payments: createPaymentsService(deps),
    calendars,
    events,
    userGroups,
    tasks,
    routines: createRoutineService({ ...deps, tasks }),
    household: createHouseholdService({ ...deps, userGroups }),
    automation,
    calendarSync,
    agents,
    // The OAuth server creates the agent a person approves, and verifies tokens for /api/mcp.
    oauth: createOAuthService({ ...deps, agents }),
  };
  // Privacy runs every module's privacy declaration; of other services it needs only the account.
  return {
    ...services,
    privacy: createPrivacyService({ ...deps, users: services.auth, declarations: PRIVACY_DECLARATIONS }),
  };
}

export type Services = ReturnType<typeof createServices>;
