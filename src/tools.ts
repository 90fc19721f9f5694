import type { z } from 'zod';
import type { Actor } from './lib/actor.js';
import { DomainError } from './lib/errors.js';
import type { AgentAccess, McpResourceProvider } from './mcp/server.js';
import type { ToolDefinition } from './mcp/types.js';
import { agentTools } from './modules/agents/tools.js';
import { authTools } from './modules/auth/tools.js';
import { automationTools } from './modules/automation/tools.js';
import { availabilityTools } from './modules/availability/tools.js';
import { calendar } from './modules/calendars/schemas.js';
import { calendarTools } from './modules/calendars/tools.js';
import { eventTools } from './modules/events/tools.js';
import { householdTools } from './modules/household/tools.js';
import { organisationTools } from './modules/organisations/tools.js';
import { reservationTools } from './modules/reservations/tools.js';
import { resourceType } from './modules/resource-types/schemas.js';
import { resourceTypeTools } from './modules/resource-types/tools.js';
import { resource } from './modules/resources/schemas.js';
import { resourceTools } from './modules/resources/tools.js';
import { routineTools } from './modules/routines/tools.js';
import { taskTools } from './modules/tasks/tools.js';
import { userGroupTools } from './modules/user-groups/tools.js';
import type { Services } from './services.js';

/**
 * Every MCP tool, built once per app from the same services the REST routes
 * use. Each module's tools.ts holds its own; the agents catalogue names them.
 */
export function createTools(services: Services): ToolDefinition[] {
  return [
    ...agentTools(services.agents),
    ...authTools(services.auth),
    ...organisationTools(services.organisations),
    ...calendarTools(services.calendars),
    ...eventTools(services.events),
    ...userGroupTools(services.userGroups),
    ...taskTools(services.tasks),
    ...routineTools(services.routines),
    ...householdTools(services.household),
    ...automationTools(services.automation),
    ...resourceTypeTools(services.resourceTypes),
    ...resourceTools(services.resources),
    ...availabilityTools(services.availability),
    ...reservationTools(services.reservations),
  ];
}

const URI_PREFIX = 'reservation-service://';

interface ResourceKind {
  path: string;
  action: string;
  label: string;
  /** The record as the REST API answers it: the schema drops internal fields. */
  schema: z.ZodType;
  list(actor: Actor): Promise<Array<{ id: number; name: string }>>;
  read(actor: Actor, id: number): Promise<unknown>;
}

/**
 * MCP resources: the agent's calendars and its owner's active organisation's
 * catalogue, each readable only under the action that lists it (so within that
 * permission's scope), as JSON of the same records the tools answer.
 */
export function createResourceProvider(services: Services): McpResourceProvider {
  const kinds: ResourceKind[] = [
    {
      path: 'calendars',
      action: 'calendar.list',
      label: 'Calendar',
      schema: calendar,
      list: (actor: Actor) => services.calendars.list(actor),
      read: (actor: Actor, id: number) => services.calendars.get(actor, id),
    },
    {
      path: 'resource-types',
      action: 'resourceTypes.list',
      label: 'Resource type',
      schema: resourceType,
      list: (actor: Actor) => services.resourceTypes.list(actor),
      read: (actor: Actor, id: number) => services.resourceTypes.get(actor, id),
    },
    {
      path: 'resources',
      action: 'resources.list',
      label: 'Resource',
      schema: resource,
      list: (actor: Actor) => services.resources.list(actor, {}),
      read: (actor: Actor, id: number) => services.resources.get(actor, id),
    },
  ];

  /** Lists of the organisation side need an active organisation; without one they are simply empty. */
  const orEmpty = async (work: () => Promise<Array<{ id: number; name: string }>>) => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof DomainError && error.code === 'NO_ACTIVE_ORGANISATION') return [];
      throw error;
    }
  };

  return {
    async list(access: AgentAccess) {
      const listed = await Promise.all(
        kinds.map(async (kind) => {
          const actor = access.actorFor(kind.action);
          if (!actor) return [];
          const records = await orEmpty(() => kind.list(actor));
          return records.map((record) => ({
            uri: `${URI_PREFIX}${kind.path}/${record.id}`,
            name: `${kind.label}: ${record.name}`,
            mimeType: 'application/json',
          }));
        }),
      );
      return listed.flat();
    },
    async read(access: AgentAccess, uri: string) {
      const match = /^reservation-service:\/\/([a-z-]+)\/(\d{1,10})$/.exec(uri);
      const kind = match && kinds.find((candidate) => candidate.path === match[1]);
      const actor = kind && access.actorFor(kind.action);
      if (!match || !kind || !actor) return null;
      const record = kind.schema.parse(await kind.read(actor, Number(match[2])));
      return [{ uri, mimeType: 'application/json', text: JSON.stringify(record) }];
    },
  };
}
