import type { Selectable } from 'kysely';
import { type Executor, precompiled } from '../../db/database.js';
import type { ProbedSession, SessionColumns, SessionProbe } from '../../mcp/types.js';
import { parsePermissions } from './permissions-repo.js';
import type { AgentStatus, AgentsTable } from './tables.js';

export type AgentRow = Selectable<AgentsTable>;
type AgentRowWithPermissions = AgentRow & Partial<SessionRow>;

/** The columns `SessionColumns` select, as a credential read answers them. */
export interface SessionRow {
  sessionLastUsedAt: string | null;
  sessionUrlElicitation: unknown;
}

/** The probed session a credential read found: null when not open for the agent, undefined when not probed. */
export function probed(
  probe: SessionProbe | undefined,
  row: Partial<SessionRow>,
): ProbedSession | null | undefined {
  if (!probe) return undefined;
  const lastUsedAt = row.sessionLastUsedAt ?? null;
  return lastUsedAt === null
    ? null
    : { ...probe, lastUsedAt, urlElicitation: Boolean(row.sessionUrlElicitation) };
}

/**
 * The agents themselves (`agents`), and whether their owner is a global admin. `sessions` (the
 * long-lived repo's): what the OAuth agent read selects to check a request's MCP session too.
 */
export function createAgentsRepo(db: Executor, sessions?: SessionColumns) {
  // An owner's agent with its permissions: the agent's own profile tool, and the owner's read.
  const selectOwnedWithPermissions = precompiled(() =>
    db.selectFrom('agents').selectAll('agents').where('agents.id', '=', 0).where('agents.userId', '=', 0),
  );
  // An agent with its permissions: the agent an OAuth access token names, on every request it
  // makes; in a 2025-era session, with the session checked too (its parameters first).
  const withPermissionsById = () => db.selectFrom('agents').selectAll('agents').where('agents.id', '=', 0);
  const selectWithPermissions = precompiled(withPermissionsById);
  const selectWithPermissionsInSession = precompiled(() =>
    withPermissionsById().select([
      sessions!.lastUsedAt.as('sessionLastUsedAt'),
      sessions!.urlElicitation.as('sessionUrlElicitation'),
    ]),
  );
  const withPermissions = (row: AgentRowWithPermissions | undefined, session?: SessionProbe) => {
    if (!row) return undefined;
    const { permissionsJson, sessionLastUsedAt, sessionUrlElicitation, ...agent } = row;
    return {
      agent: agent as AgentRow,
      permissions: parsePermissions(permissionsJson),
      session: probed(session, { sessionLastUsedAt, sessionUrlElicitation }),
    };
  };

  return {
    async insert(values: {
      userId: number;
      name: string;
      description: string | null;
      permissionGroupId: string | null;
      oauthClientId: string | null;
      now: string;
    }): Promise<AgentRow> {
      const { now, ...agent } = values;
      return db
        .insertInto('agents')
        .values({
          ...agent,
          status: 'active',
          createdAt: now,
          updatedAt: now,
          lastUsedAt: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** The owner's agent; another user's answers undefined, exactly like an absent one. */
    findOwned(userId: number, id: number): Promise<AgentRow | undefined> {
      return db
        .selectFrom('agents')
        .selectAll()
        .where('id', '=', id)
        .where('userId', '=', userId)
        .executeTakeFirst();
    },

    /** The owner's agent with its permissions, in one statement; another user's answers undefined. */
    async findOwnedWithPermissions(userId: number, id: number) {
      const [row] = await selectOwnedWithPermissions(db, id, userId);
      return withPermissions(row);
    },

    /** The agent with its permissions, and `session`'s columns, in one statement. */
    async findWithPermissions(id: number, session?: SessionProbe) {
      const [row] = session
        ? await selectWithPermissionsInSession(db, ...sessions!.parameters(session), id)
        : await selectWithPermissions(db, id);
      return withPermissions(row, session);
    },

    findByOAuthClient(userId: number, clientId: string): Promise<AgentRow | undefined> {
      return db
        .selectFrom('agents')
        .selectAll()
        .where('userId', '=', userId)
        .where('oauthClientId', '=', clientId)
        .executeTakeFirst();
    },

    listForUser(userId: number): Promise<AgentRow[]> {
      return db.selectFrom('agents').selectAll().where('userId', '=', userId).orderBy('id').execute();
    },

    /**
     * Changes the agent unless it is disabled (undefined then), so a change racing a
     * DELETE can never revive it; `evenIfDisabled` for disabling and OAuth reactivation.
     */
    update(
      id: number,
      values: {
        name?: string;
        description?: string | null;
        status?: AgentStatus;
        permissionGroupId?: string | null;
      },
      now: string,
      options: { evenIfDisabled?: boolean } = {},
    ): Promise<AgentRow | undefined> {
      return db
        .updateTable('agents')
        .set({ ...values, updatedAt: now })
        .where('id', '=', id)
        .$if(!options.evenIfDisabled, (qb) => qb.where('status', '!=', 'disabled'))
        .returningAll()
        .executeTakeFirst();
    },

    async touch(id: number, now: string): Promise<void> {
      await db.updateTable('agents').set({ lastUsedAt: now }).where('id', '=', id).execute();
    },
  };
}

export type AgentsRepo = ReturnType<typeof createAgentsRepo>;
