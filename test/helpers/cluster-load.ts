// The load of the rolling-restart test (test/cluster/rolling-restart.cluster.ts) and its bench
// (bench/rolling-restart.ts), over real HTTP through a cluster's balancer: loops booking new
// times through REST (`POST /api/reservations`) and through MCP (`reservations_create` with the
// SDK client), each answer timed and checked, each acknowledged booking kept for the check
// that it exists afterwards.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** What the load books into: an organisation's pool type, an owner's bearer header, an agent's key. */
export interface LoadTarget {
  url: string;
  auth: Record<string, string>;
  typeId: number;
  agentKey: string;
}

/** One answer: when it was asked (ms since the epoch), how long it took, and what was wrong with it. */
export interface Sample {
  at: number;
  ms: number;
  failure?: string;
}

export interface LoadResult {
  samples: Sample[];
  /** The ids of the bookings the service acknowledged (201, or a tool result with its id). */
  booked: number[];
}

const LANES = 4;
const DAY = 86_400_000;

async function call<T>(url: string, method: string, path: string, body: unknown, headers = {}): Promise<T> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A new owner, organisation (UTC), POOL type of LANES lanes open all day, and a booking agent. */
export async function seedLoadTarget(url: string): Promise<LoadTarget> {
  const { accessToken } = await call<{ accessToken: string }>(url, 'POST', '/api/auth/register', {
    email: `cluster-${Date.now()}-${process.pid}@example.test`,
    password: 'cluster test password',
    name: 'Cluster',
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  await call(url, 'POST', '/api/organisations', { name: 'Cluster', timezone: 'UTC' }, auth);
  const operatingHours = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({
    dayOfWeek,
    openTime: '00:00',
    closeTime: '23:59',
  }));
  const type = await call<{ id: number }>(
    url,
    'POST',
    '/api/resource-types',
    { name: 'Rooms', bookingMode: 'POOL', minBookingDuration: 15, schedulePolicy: { operatingHours } },
    auth,
  );
  await call(
    url,
    'POST',
    '/api/resources',
    { name: 'Rooms', resourceTypeId: type.id, capacity: LANES },
    auth,
  );
  const agent = await call<{ id: number }>(
    url,
    'POST',
    '/api/agents',
    { name: 'Cluster booker', permissionGroupId: 'reservations_operator' },
    auth,
  );
  const { key } = await call<{ key: string }>(
    url,
    'POST',
    `/api/agents/${agent.id}/keys`,
    { label: 'load' },
    auth,
  );
  return { url, auth, typeId: type.id, agentKey: key };
}

/** Bookings a day: 15 minutes each from 00:00 to 22:30 UTC, inside the opening hours. */
const PER_DAY = 90;

/** The nth booking's time: 15 minutes, from two days on, so no two ever collide. */
function slot(n: number) {
  const first = Math.ceil(Date.now() / DAY) * DAY + 2 * DAY;
  const start = first + Math.floor(n / PER_DAY) * DAY + (n % PER_DAY) * 15 * 60_000;
  return { startTime: new Date(start).toISOString(), endTime: new Date(start + 15 * 60_000).toISOString() };
}

const customer = { name: 'Cluster Customer', email: 'customer@example.test' };

/**
 * `rest` REST loops and `mcp` MCP loops booking new times back to back until `stop()`, which
 * answers every sample and booking. Each MCP loop holds one 2025-era session for its whole run
 * (the session lives in the database, so any instance serves it).
 */
export function startLoad(target: LoadTarget, loops: { rest: number; mcp: number }) {
  const result: LoadResult = { samples: [], booked: [] };
  let next = 0;
  let stopped = false;
  const timed = async (work: () => Promise<number | string>) => {
    const at = Date.now();
    const outcome = await work().catch((error: unknown) => `error: ${String(error)}`);
    const sample: Sample = { at, ms: Date.now() - at };
    if (typeof outcome === 'number') result.booked.push(outcome);
    else sample.failure = outcome;
    result.samples.push(sample);
  };
  const restLoop = async () => {
    while (!stopped) await timed(() => bookOverRest(target, next++));
  };
  const mcpLoop = async () => {
    const client = new Client({ name: 'cluster-load', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${target.url}/api/mcp`), {
        requestInit: { headers: { 'x-agent-key': target.agentKey } },
      }),
    );
    while (!stopped) await timed(() => bookOverMcp(client, target, next++));
    await client.close();
  };
  const running = [
    ...Array.from({ length: loops.rest }, restLoop),
    ...Array.from({ length: loops.mcp }, mcpLoop),
  ];
  return {
    result,
    async stop(): Promise<LoadResult> {
      stopped = true;
      await Promise.all(running);
      return result;
    },
  };
}

/** A booking's id, or what was wrong with its answer. */
async function bookOverRest(target: LoadTarget, n: number): Promise<number | string> {
  const response = await fetch(`${target.url}/api/reservations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.auth },
    body: JSON.stringify({ resourceTypeId: target.typeId, ...slot(n), customer }),
  });
  const text = await response.text();
  if (response.status !== 201) return `REST ${response.status}: ${text.slice(0, 300)}`;
  return (JSON.parse(text) as { id: number }).id;
}

async function bookOverMcp(client: Client, target: LoadTarget, n: number): Promise<number | string> {
  const result = await client.callTool({
    name: 'reservations_create',
    arguments: { resourceTypeId: target.typeId, ...slot(n), customer },
  });
  const content = result.structuredContent as { id?: number } | undefined;
  if (result.isError || typeof content?.id !== 'number')
    return `MCP: ${JSON.stringify(result.structuredContent ?? result.content).slice(0, 300)}`;
  return content.id;
}

/** The 99th percentile of the samples' times in milliseconds (0 without samples). */
export function p99(samples: readonly Sample[]): number {
  const times = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  if (times.length === 0) return 0;
  return times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)]!;
}
