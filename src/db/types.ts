import type { AgentTables } from './tables/agents.js';
import type { AutomationTables } from './tables/automation.js';
import type { AvailabilityTables } from './tables/availability.js';
import type { CalendarSyncTables } from './tables/calendar-sync.js';
import type { CalendarTables } from './tables/calendars.js';
import type { HouseholdTables } from './tables/household.js';
import type { IdempotencyTables } from './tables/idempotency.js';
import type { McpTables } from './tables/mcp.js';
import type { OauthTables } from './tables/oauth.js';
import type { OrganisationTables } from './tables/organisations.js';
import type { PaymentTables } from './tables/payments.js';
import type { PlatformTables } from './tables/platform.js';
import type { PrivacyTables } from './tables/privacy.js';
import type { ResourceTables } from './tables/resources.js';
import type { TaskTables } from './tables/tasks.js';
import type { UserGroupTables } from './tables/user-groups.js';
import type { UserTables } from './tables/users.js';

export interface Database
  extends UserTables,
    PlatformTables,
    OrganisationTables,
    PaymentTables,
    CalendarTables,
    CalendarSyncTables,
    UserGroupTables,
    ResourceTables,
    TaskTables,
    HouseholdTables,
    AutomationTables,
    AgentTables,
    McpTables,
    OauthTables,
    PrivacyTables,
    IdempotencyTables,
    AvailabilityTables {}
