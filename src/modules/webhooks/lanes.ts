import type { FastifyBaseLogger } from 'fastify';

/** An endpoint with deliveries to send, and the organisation it belongs to (the unit of fairness). */
export interface LaneTarget {
  endpointId: number;
  organisationId: number;
}

export interface LanesOptions {
  /** Lanes of one endpoint on this instance (the claim also counts other instances' attempts). */
  perEndpoint: number;
  /** Lanes of this instance in all: each is one request in flight. */
  capacity: number;
  /** Deliveries a lane claims at once once it is sending steadily (its first claim takes one). */
  batch: number;
  /**
   * Claims up to `size` of the endpoint's due deliveries and sends them, stopping early when
   * `handOn` says endpoints wait for a lane: the attempts made (0 when it may take none now),
   * and whether the last one failed.
   */
  sendBatch: (
    endpointId: number,
    size: number,
    handOn: () => boolean,
  ) => Promise<{ attempts: number; failed: boolean }>;
  log?: Pick<FastifyBaseLogger, 'warn'>;
}

/**
 * This instance's sending, per endpoint (DECISIONS.md "What the review found, decided"). A lane
 * is a loop that sends an endpoint's due deliveries one after another, a claimed batch at a
 * time, until the endpoint has none it may take; an endpoint gets at most `perEndpoint` lanes. So an endpoint that never
 * answers holds its own lanes for a timeout each and nobody else's. Past `capacity` lanes,
 * endpoints wait their turn, taken round-robin by organisation, and each lane hands its turn on
 * after every attempt while any wait: one organisation's endpoints cannot keep the others out.
 */
export function createLanes(options: LanesOptions) {
  const { perEndpoint, capacity, batch, sendBatch, log } = options;
  /** Per endpoint with lanes: how many, and whether new work came since a lane last looked. */
  const endpoints = new Map<number, { lanes: number; again: boolean }>();
  /** Endpoints waiting for a lane, per organisation; organisations in the order their turn comes. */
  const waiting = new Map<number, LaneTarget[]>();
  const waitingIds = new Set<number>();
  let running = 0;
  let attempts = 0;
  let closed = false;
  let idleWaiters: Array<() => void> = [];

  const stateOf = (endpointId: number) => {
    let state = endpoints.get(endpointId);
    if (!state) {
      state = { lanes: 0, again: false };
      endpoints.set(endpointId, state);
    }
    return state;
  };

  function enqueue(target: LaneTarget): void {
    if (waitingIds.has(target.endpointId)) return;
    waitingIds.add(target.endpointId);
    const queue = waiting.get(target.organisationId);
    if (queue) queue.push(target);
    else waiting.set(target.organisationId, [target]);
  }

  /** The next waiting endpoint: the first of the organisation whose turn it is, which then goes last. */
  function nextWaiting(): LaneTarget | undefined {
    const [organisationId, queue] = waiting.entries().next().value ?? [];
    if (organisationId === undefined || !queue) return undefined;
    const target = queue.shift()!;
    waiting.delete(organisationId);
    if (queue.length > 0) waiting.set(organisationId, queue);
    waitingIds.delete(target.endpointId);
    return target;
  }

  function settle(): void {
    if (running > 0 || waitingIds.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  const handOn = () => waitingIds.size > 0 || closed;

  async function lane(target: LaneTarget, state: { lanes: number; again: boolean }): Promise<void> {
    // One delivery first, so an endpoint's lanes share a short queue and a failing endpoint is
    // claimed afresh for each attempt; a batch once a claim went through without a failure.
    let size = 1;
    try {
      while (!closed) {
        state.again = false;
        const { attempts: made, failed } = await sendBatch(target.endpointId, size, handOn);
        size = failed ? 1 : batch;
        if (made === 0) {
          // Work that came while the claim ran may not have been seen by it: look once more.
          if (state.again) continue;
          return;
        }
        attempts += made;
        if (waitingIds.size > 0) {
          enqueue(target);
          return;
        }
      }
    } catch (error) {
      // The database away, say: the next wake or the minute's scan starts the lane again.
      log?.warn({ err: error, webhookId: target.endpointId }, 'webhook lane stopped');
    } finally {
      state.lanes -= 1;
      running -= 1;
      if (state.lanes === 0) endpoints.delete(target.endpointId);
      for (let next = nextWaiting(); next; next = running < capacity ? nextWaiting() : undefined) fill(next);
      settle();
    }
  }

  /** Starts lanes for the endpoint up to its share, or queues it when the instance is full. */
  function fill(target: LaneTarget): void {
    if (closed) return;
    const state = stateOf(target.endpointId);
    state.again = true;
    while (state.lanes < perEndpoint) {
      if (running >= capacity) {
        enqueue(target);
        return;
      }
      state.lanes += 1;
      running += 1;
      void lane(target, state);
    }
  }

  return {
    /** New or due deliveries for these endpoints: lanes start (or look again) for each. */
    wake(targets: Iterable<LaneTarget>): void {
      for (const target of targets) fill(target);
    },
    /** Resolves once no lane runs and no endpoint waits. */
    idle(): Promise<void> {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settle();
      });
    },
    /** Attempts made since this instance started. */
    get attempts(): number {
      return attempts;
    },
    /** Starts nothing more; resolves once the attempts in flight have ended (each within the send timeout). */
    async close(): Promise<void> {
      closed = true;
      waiting.clear();
      waitingIds.clear();
      await new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settle();
      });
    },
  };
}

export type Lanes = ReturnType<typeof createLanes>;
