import { mcpPrivacy } from './mcp/privacy.js';
import type { ModuleName } from './module.js';
import { userAgentIds } from './modules/agents/ports.js';
import { MODULES } from './modules/index.js';
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
 * Declarations of the MCP runtime's tables, listed right after the module whose rows they
 * find theirs through: MCP sessions are found through the person's agents, so they are
 * erased before the agents are.
 */
const RUNTIME_DECLARATIONS: Partial<Record<ModuleName, PrivacyDeclaration>> = {
  agents: mcpPrivacy(userAgentIds),
};

/**
 * Every privacy declaration: the modules' in MODULES order (src/modules/index.ts), the
 * runtime's beside them, the migrator's last. This order is the export's and the access
 * report's (the account first); erasure runs it backwards, so what refers to something is
 * erased before what it refers to (sessions before agents, events before calendars, every
 * module before the user row itself).
 *
 * A module that adds a table declares it in its own privacy.ts; test/modules/privacy/privacy-tables
 * fails for any table of the schema no declaration names.
 */
export const PRIVACY_DECLARATIONS: readonly PrivacyDeclaration[] = [
  ...MODULES.flatMap((module) =>
    [module.privacy, RUNTIME_DECLARATIONS[module.name]].filter((d): d is PrivacyDeclaration => !!d),
  ),
  databasePrivacy,
];
