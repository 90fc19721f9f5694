import type { Generated } from 'kysely';
import type { Id, JsonText, Timestamp } from '../../db/column-types.js';

/** `active` (new), `paused` (by the owner), `disabled` (after DELETE; kept for its history). */
export type AgentStatus = 'active' | 'paused' | 'disabled';

/** An AI agent profile a user manages; it acts for that user through the MCP runtime. */
export interface AgentsTable {
  id: Id;
  userId: number;
  name: string;
  description: string | null;
  status: AgentStatus;
  /** The preset last assigned; null when the permissions were set explicitly. */
  permissionGroupId: string | null;
  /** The OAuth client that created the agent; one agent per (user, client). */
  oauthClientId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  lastUsedAt: Timestamp | null;
  /**
   * The agent's `agent_permissions` as one JSON text of `[actionKey, scope]` pairs in id order,
   * written with them (permissions-repo.ts): what the credential read of every MCP request takes.
   */
  permissionsJson: Generated<string>;
}

/** One allowed action of an agent; presets are materialised here too. */
export interface AgentPermissionsTable {
  id: Id;
  agentId: number;
  actionKey: string;
  /** `{calendarIds?, groupIds?}` as JSON; null: unrestricted within the owner's rights. */
  scope: JsonText | null;
}

/** Static agent keys (`ag_sk_...`), stored only as SHA-256 hashes. */
export interface AgentKeysTable {
  id: Id;
  agentId: number;
  label: string;
  prefix: string;
  keyHash: string;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
  revokedAt: Timestamp | null;
}

/** One MCP tool call of an agent. */
export interface AgentActivityTable {
  id: Id;
  agentId: number;
  actionKey: string;
  outcome: 'ok' | 'error';
  /** The domain error code of a refused call; null on success. */
  errorCode: string | null;
  durationMs: number;
  /** The call's arguments as JSON, contact details and secrets redacted; null when none were kept. */
  arguments: JsonText | null;
  /** JSON array of the ids the call named or answered (reservation, event, ...); null when none. */
  targetIds: JsonText | null;
  /** The approval the call ran under (an approved call), or that it asked for. */
  approvalId: number | null;
  createdAt: Timestamp;
}

export type ApprovalMode = 'never' | 'writes' | 'destructive';

/** An agent's policy (DECISIONS.md "Agents acting safely"); no row: `never`, no limits. */
export interface AgentPoliciesTable {
  agentId: number;
  requireApproval: ApprovalMode;
  /** Calls that would charge more than this (minor units) need approval; null: no threshold. */
  approvalOverAmount: number | null;
  bookingsPerDay: number | null;
  cancellationsPerDay: number | null;
  spendPerDay: number | null;
  updatedAt: Timestamp;
}

export type UsageKind = 'booking' | 'cancellation' | 'spend';

/**
 * What an agent's uses add up to, by kind, in the 24 hours before `since`: the window of its
 * last count, moved forward at the next (agents module, migration 0041).
 */
export interface AgentUsageWindowsTable {
  agentId: number;
  since: Generated<Timestamp | null>;
  bookingUsed: Generated<number>;
  cancellationUsed: Generated<number>;
  spendUsed: Generated<number>;
}

/** One counted use of a daily limit; rows older than 24 hours no longer count. */
export interface AgentUsageTable {
  id: Id;
  agentId: number;
  kind: UsageKind;
  amount: number;
  createdAt: Timestamp;
}

/** The tables this module owns (declared into Database by its module.ts). */
export interface AgentTables {
  agents: AgentsTable;
  agentPermissions: AgentPermissionsTable;
  agentKeys: AgentKeysTable;
  agentActivity: AgentActivityTable;
  agentPolicies: AgentPoliciesTable;
  agentUsage: AgentUsageTable;
  agentUsageWindows: AgentUsageWindowsTable;
}
