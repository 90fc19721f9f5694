import { findAction, PRESENTED_MODULES, TOOL_MODULES } from './catalogue.js';
import type { Actor } from './lib/actor.js';
import { DomainError } from './lib/errors.js';
import { appContents, type McpApp } from './mcp/apps.js';
import type { AgentAccess, McpResourceProvider } from './mcp/server.js';
import { bindTools, type ToolDefinition } from './mcp/types.js';
import type { ModuleResource } from './module.js';
import type { Services } from './services.js';

/**
 * Every MCP tool, built once per app: each module's declared tools (its tools.ts), bound
 * to the same service the REST routes use, in the catalogue's presentation order.
 */
export function createTools(services: Services): ToolDefinition[] {
  return TOOL_MODULES.flatMap((module) => bindTools(module.tools ?? [], services[module.name]));
}

const URI_PREFIX = 'reservation-service://';

/** A module's resource kind bound to its service. */
interface ResourceKind extends Pick<ModuleResource<unknown>, 'path' | 'action' | 'label' | 'schema'> {
  list(actor: Actor): Promise<Array<{ id: number; name: string }>>;
  read(actor: Actor, id: number): Promise<unknown>;
}

/**
 * MCP resources: what the modules declare (their module.ts `resources`, e.g. the agent's
 * calendars and its owner's active organisation's catalogue), each readable only under the
 * action that lists it (so within that permission's scope), as JSON of the same records
 * the tools answer.
 */
export function createResourceProvider(
  services: Services,
  apps: readonly McpApp[] = [],
): McpResourceProvider {
  const kinds: ResourceKind[] = PRESENTED_MODULES.flatMap((module) =>
    (module.resources ?? []).map(({ list, read, ...kind }) => {
      if (!findAction(kind.action))
        throw new Error(`Resources ${kind.path} are listed by ${kind.action}, no tool's action`);
      const service = services[module.name];
      return {
        ...kind,
        list: (actor: Actor) => list(service, actor),
        read: (actor: Actor, id: number) => read(service, actor, id),
      };
    }),
  );

  /** Lists of the organisation side need an active organisation; without one they are simply empty. */
  const orEmpty = async (work: () => Promise<Array<{ id: number; name: string }>>) => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof DomainError && error.code === 'NO_ACTIVE_ORGANISATION') return [];
      throw error;
    }
  };

  const appsOf = appsFor(apps);
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
      return [...listed.flat(), ...appsOf(access).map((app) => app.resource)];
    },
    async read(access: AgentAccess, uri: string) {
      const app = appsOf(access).find((candidate) => candidate.resource.uri === uri);
      if (app) return app.html === null ? null : appContents({ ...app, html: app.html });
      const match = /^reservation-service:\/\/([a-z-]+)\/(\d{1,10})$/.exec(uri);
      const kind = match && kinds.find((candidate) => candidate.path === match[1]);
      const actor = kind && access.actorFor(kind.action);
      if (!match || !kind || !actor) return null;
      const record = kind.schema.parse(await kind.read(actor, Number(match[2])));
      return [{ uri, mimeType: 'application/json', text: JSON.stringify(record) }];
    },
  };
}

/**
 * The MCP Apps an agent may read: those of a tool it may call (an app shows a tool's result and
 * is of no use, and no one's business, without it).
 */
function appsFor(apps: readonly McpApp[]): (access: AgentAccess) => McpApp[] {
  const linking = TOOL_MODULES.flatMap((module) => module.tools ?? []);
  const actionsOf = (uri: string) => linking.filter((tool) => tool.app === uri).map((tool) => tool.actionKey);
  const usable = apps.map((app) => ({ app, actions: actionsOf(app.resource.uri) }));
  return (access) =>
    usable.filter(({ actions }) => actions.some((action) => access.actorFor(action))).map(({ app }) => app);
}
