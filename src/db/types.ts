/**
 * The database as Kysely sees it. Declared empty here: each module declares the tables it
 * owns in its tables.ts and merges them in from its module.ts (its manifest's `tables` lists
 * their names); the MCP runtime's own in src/mcp/tables.ts.
 *
 *     declare module '../../db/types.js' {
 *       interface Database extends WebhookTables {}
 *     }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in each module.ts
export interface Database {}
