import { mcpPrivacy } from './mcp/privacy.js';
import { agentsPrivacy } from './modules/agents/privacy.js';
import { authPrivacy } from './modules/auth/privacy.js';
import { automationPrivacy } from './modules/automation/privacy.js';
import { availabilityPrivacy } from './modules/availability/privacy.js';
import { calendarSyncPrivacy } from './modules/calendar-sync/privacy.js';
import { calendarsPrivacy } from './modules/calendars/privacy.js';
import { eventsPrivacy } from './modules/events/privacy.js';
import { householdPrivacy } from './modules/household/privacy.js';
import { idempotencyPrivacy } from './modules/idempotency/privacy.js';
import { oauthPrivacy } from './modules/oauth/privacy.js';
import { organisationsPrivacy } from './modules/organisations/privacy.js';
import { paymentsPrivacy } from './modules/payments/privacy.js';
import { platformPrivacy } from './modules/platform/privacy.js';
import { privacyPrivacy } from './modules/privacy/privacy.js';
import { reservationsPrivacy } from './modules/reservations/privacy.js';
import { resourceTypesPrivacy } from './modules/resource-types/privacy.js';
import { resourcesPrivacy } from './modules/resources/privacy.js';
import { routinesPrivacy } from './modules/routines/privacy.js';
import { tasksPrivacy } from './modules/tasks/privacy.js';
import { userGroupsPrivacy } from './modules/user-groups/privacy.js';
import { noPersonalData, type PrivacyDeclaration } from './privacy/declaration.js';

/** Tables no module owns: the migrator's bookkeeping. */
const databasePrivacy: PrivacyDeclaration = {
  module: 'database',
  tables: {
    kysely_migration: noPersonalData('Names and times of the applied schema migrations'),
    kysely_migration_lock: noPersonalData('The migrator’s lock row'),
  },
  categories: [],
  holdings: async () => ({}),
  exports: [],
  erase: async () => ({}),
};

/**
 * Every privacy declaration. This order is the export's and the access report's
 * (the account first); erasure runs it backwards, so what refers to something is
 * erased before what it refers to (sessions before agents, events before calendars,
 * every module before the user row itself).
 *
 * A module that adds a table declares it in its own privacy.ts; test/privacy-tables
 * fails for any table of the schema no declaration names.
 */
export const PRIVACY_DECLARATIONS: readonly PrivacyDeclaration[] = [
  authPrivacy,
  organisationsPrivacy,
  resourcesPrivacy,
  reservationsPrivacy,
  idempotencyPrivacy,
  calendarsPrivacy,
  eventsPrivacy,
  userGroupsPrivacy,
  tasksPrivacy,
  routinesPrivacy,
  householdPrivacy,
  automationPrivacy,
  calendarSyncPrivacy,
  agentsPrivacy,
  mcpPrivacy,
  oauthPrivacy,
  privacyPrivacy,
  platformPrivacy,
  paymentsPrivacy,
  resourceTypesPrivacy,
  availabilityPrivacy,
  databasePrivacy,
];
