import { mcpPrivacy } from '../../mcp/privacy.js';
import { agentsPrivacy } from '../agents/privacy.js';
import { authPrivacy } from '../auth/privacy.js';
import { automationPrivacy } from '../automation/privacy.js';
import { availabilityPrivacy } from '../availability/privacy.js';
import { calendarSyncPrivacy } from '../calendar-sync/privacy.js';
import { calendarsPrivacy } from '../calendars/privacy.js';
import { eventsPrivacy } from '../events/privacy.js';
import { householdPrivacy } from '../household/privacy.js';
import { idempotencyPrivacy } from '../idempotency/privacy.js';
import { oauthPrivacy } from '../oauth/privacy.js';
import { organisationsPrivacy } from '../organisations/privacy.js';
import { paymentsPrivacy } from '../payments/privacy.js';
import { platformPrivacy } from '../platform/privacy.js';
import { reservationsPrivacy } from '../reservations/privacy.js';
import { resourceTypesPrivacy } from '../resource-types/privacy.js';
import { resourcesPrivacy } from '../resources/privacy.js';
import { routinesPrivacy } from '../routines/privacy.js';
import { tasksPrivacy } from '../tasks/privacy.js';
import { userGroupsPrivacy } from '../user-groups/privacy.js';
import { noPersonalData, type PrivacyDeclaration } from './declaration.js';
import { privacyPrivacy } from './privacy.js';

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
