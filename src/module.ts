import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Config } from './config.js';
import type { Db, Executor } from './db/database.js';
import type { DialectMigration } from './db/migrate.js';
import type { Database } from './db/types.js';
import { type JobDeclaration, registerJobs } from './jobs/declarations.js';
import type { JobQueue } from './jobs/queue.js';
import type { Actor } from './lib/actor.js';
import type { EphemeralStore } from './lib/ephemeral-store.js';
import type { CatalogueAction, SessionColumns, ToolDeclaration } from './mcp/types.js';
import type { Metrics } from './metrics.js';
import type { PrivacyDeclaration } from './privacy/declaration.js';

/**
 * The module contract: each folder of src/modules exports one `defineModule(...)` from
 * its module.ts, and src/modules/index.ts lists them (MODULES). The app (routes), the
 * service registry, the job queue's registrations, the MCP tools and resources, the action
 * catalogue, the privacy service and the migrator all read that one list. This file imports
 * no module.
 */

/**
 * Every domain service by name, built once per app: HTTP routes and MCP tools both call
 * these. Declared empty here; each module's module.ts adds its own by declaration merging:
 *
 *     declare module '../../module.js' {
 *       interface Services { household: HouseholdService }
 *     }
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in each module.ts
export interface Services {}

export type ModuleName = keyof Services;

/** A preset of actions an owner assigns to an agent in one step (src/catalogue.ts holds them). */
export interface PermissionGroup {
  id: string;
  label: string;
  description: string;
  actionKeys: readonly string[];
  requiresGlobalAdmin: boolean;
  highlights: readonly string[];
}

/** The action catalogue as the agents module reads it; derived from every module's tools (src/catalogue.ts). */
export interface ActionCatalogue {
  actions: readonly CatalogueAction[];
  findAction(key: string): CatalogueAction | undefined;
  permissionGroups: readonly PermissionGroup[];
  findPermissionGroup(id: string): PermissionGroup | undefined;
  /** Whether a person may assign the group: the global-admin ones only a global admin. */
  canAssignGroup(group: PermissionGroup, isGlobalAdmin: boolean): boolean;
  /** Whether only a global admin may grant this action explicitly. */
  needsGlobalAdminToGrant(actionKey: string): boolean;
}

/** The app's infrastructure, as app.ts hands it to createServices. */
export interface InfrastructureDeps {
  db: Db;
  config: Config;
  store: EphemeralStore;
  metrics: Metrics;
  jobs: JobQueue;
  /** The app's logger, for background work that has no request to log through. */
  log?: FastifyBaseLogger;
}

/** What every module's service factory receives: the infrastructure and what the wiring derives from MODULES. */
export interface ServiceDeps extends InfrastructureDeps {
  /** The action catalogue and permission presets (src/catalogue.ts). */
  catalogue: ActionCatalogue;
  /** Every privacy declaration, in export order (src/privacy-declarations.ts). */
  privacyDeclarations: readonly PrivacyDeclaration[];
  /**
   * The MCP runtime's sessions (src/mcp/sessions.ts): disabling an agent ends its own, and the
   * credential read checks a request's session in its own statement.
   */
  mcpSessions: {
    endForAgent(executor: Executor, agentId: number, at: Date): Promise<void>;
    sessionColumns(): SessionColumns;
  };
}

/** One group of HTTP routes of a module, registered under `prefix` (none: at the root). */
export interface ModuleRoutes {
  prefix?: string;
  plugin: FastifyPluginAsyncZod;
}

/**
 * One kind of record a module offers agents as MCP resources (src/tools.ts), readable only
 * under the action that lists it (so within that permission's scope).
 */
export interface ModuleResource<S> {
  /** Its URIs: `reservation-service://<path>/<id>`. */
  path: string;
  /** The action key that lists it; an agent without it sees none. */
  action: string;
  label: string;
  /** The record as the REST API answers it: the schema drops internal fields. */
  schema: z.ZodType;
  list(service: S, actor: Actor): Promise<Array<{ id: number; name: string }>>;
  read(service: S, actor: Actor, id: number): Promise<unknown>;
}

export interface ModuleDefinition<
  N extends ModuleName = ModuleName,
  T extends ReadonlyArray<ToolDeclaration<Services[N]>> = ReadonlyArray<ToolDeclaration<Services[N]>>,
> {
  /** Its key in Services, e.g. 'household'. */
  name: N;
  /**
   * The tables it owns (Kysely names), declared into Database by its module.ts: only its own
   * code queries them; other modules go through its service or a read port it exports
   * (test/modules/ownership.test.ts checks both).
   */
  tables: readonly (keyof Database)[];
  /**
   * Builds the service, once. `services` is the lazy registry: reading `services.x` builds x
   * on first use (a cycle at construction time throws, naming the chain); hooks that run
   * later (after a write commits) read it when they run.
   */
  service(deps: ServiceDeps, services: Services): Services[N];
  /** Its HTTP routes, registered in MODULES order. */
  routes?: readonly ModuleRoutes[];
  /** Its MCP tools, each declared once with its catalogue entry (tools.ts). */
  tools?: T;
  /** What its tables hold about a person (privacy.ts); MODULES order is the export's order. */
  privacy?: PrivacyDeclaration;
  /**
   * Migrations of its own tables, named with the global sequence after the landed ones in
   * src/db/migrate.ts (e.g. '0019_waitlist'); a landed migration is never edited.
   */
  migrations?: Readonly<Record<string, DialectMigration>>;
  /**
   * Its background jobs, from its built service: registered once every service is built
   * (registerModuleJobs), so a factory only queues (`jobs.send`), never registers.
   */
  jobs?(service: Services[N], deps: ServiceDeps): readonly JobDeclaration[];
  /** Its MCP resources, read through its service. */
  resources?: ReadonlyArray<ModuleResource<Services[N]>>;
  /**
   * Where its tools and resources come when presented (the catalogue, `tools/list`,
   * `resources/list`): lowest first; modules without one follow, in MODULES order.
   */
  presentation?: { order: number };
}

/** Types a module's definition (and keeps its tools' action keys as literal types for the catalogue). */
export function defineModule<
  const N extends ModuleName,
  const T extends ReadonlyArray<ToolDeclaration<Services[N]>> = readonly [],
>(definition: ModuleDefinition<N, T>): ModuleDefinition<N, T> {
  return definition;
}

/** The action keys of the modules' tools, as a union of literal types. */
export type ActionKeyOf<M extends readonly ModuleDefinition[]> = NonNullable<
  M[number]['tools']
>[number]['actionKey'];

/**
 * The services of `modules`, each built on first read and then kept. Every service is
 * built before this returns (in list order, a dependency first when a factory reads it),
 * so a factory's failure, or a cycle of factories, fails the start.
 */
export function createServiceRegistry(modules: readonly ModuleDefinition[], deps: ServiceDeps): Services {
  const registry = {} as Services;
  const built = new Map<ModuleName, unknown>();
  const building: ModuleName[] = [];
  for (const module of modules) {
    if (Object.hasOwn(registry, module.name)) throw new Error(`Two modules are named ${module.name}`);
    Object.defineProperty(registry, module.name, {
      enumerable: true,
      get() {
        if (built.has(module.name)) return built.get(module.name);
        if (building.includes(module.name))
          throw new Error(`Services need each other to be built: ${[...building, module.name].join(' -> ')}`);
        building.push(module.name);
        try {
          built.set(module.name, module.service(deps, registry));
        } finally {
          building.pop();
        }
        return built.get(module.name);
      },
    });
  }
  for (const module of modules) void registry[module.name];
  return registry;
}

/** Registers every module's jobs on `deps.jobs`, after `createServiceRegistry` built `services`. */
export function registerModuleJobs(
  modules: readonly ModuleDefinition[],
  services: Services,
  deps: ServiceDeps,
): void {
  registerJobs(
    deps.jobs,
    modules.flatMap((module) => module.jobs?.(services[module.name], deps) ?? []),
  );
}

/** Every module's migrations in one record, for migrateToLatest; a name declared twice fails the start. */
export function moduleMigrations(modules: readonly ModuleDefinition[]): Record<string, DialectMigration> {
  const all: Record<string, DialectMigration> = {};
  for (const module of modules)
    for (const [name, migration] of Object.entries(module.migrations ?? {})) {
      if (Object.hasOwn(all, name)) throw new Error(`Two modules declare the migration ${name}`);
      all[name] = migration;
    }
  return all;
}
