import { z } from 'zod';
import { invalidVariable } from './fields.js';

/** Work done beside requests: the job queue, the outbox's deliveries (webhooks, mail), retention. */
export const backgroundEnv = z.object({
  JOB_QUEUE: z
    .enum(['auto', 'in-process'])
    .default('auto')
    .describe('auto: pg-boss on PostgreSQL, in-process on SQLite; in-process: always in this process'),
  OUTBOX_POLL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(100)
    .describe(
      'How often each instance looks for new events to deliver (webhooks, mail); 0: only every minute',
    ),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  /** How long a webhook attempt waits for an answer (DECISIONS.md: 10 s; tests lower it). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(10_000),
  /** How long an agent's tool calls are kept in its activity (DECISIONS.md: default 90). */
  AGENT_ACTIVITY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
});

type BackgroundEnv = z.output<typeof backgroundEnv>;

export interface BackgroundConfig {
  /** Where background jobs run: `auto` puts them in pg-boss on PostgreSQL. */
  jobQueue: 'auto' | 'in-process';
  /** Milliseconds between an instance's looks for new outbox events; 0: none (the minute jobs only). */
  outboxPollMs: number;
  /** Development and tests only: webhook endpoints may be `http://` and on loopback or private addresses. */
  webhookAllowPrivate: boolean;
  /** Milliseconds a webhook attempt waits for a 2xx before it counts as failed (at most 10 s). */
  webhookTimeoutMs: number;
  /** Days an agent's tool calls stay in its activity. */
  agentActivityRetentionDays: number;
}

/** Production delivers webhooks to public addresses only. */
export function assertBackgroundForProduction(e: BackgroundEnv): void {
  if (e.WEBHOOK_ALLOW_PRIVATE === 'true')
    throw invalidVariable('WEBHOOK_ALLOW_PRIVATE', 'must not be true in production');
}

export function backgroundConfig(e: BackgroundEnv): BackgroundConfig {
  return {
    jobQueue: e.JOB_QUEUE,
    outboxPollMs: e.OUTBOX_POLL_MS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_MS,
    agentActivityRetentionDays: e.AGENT_ACTIVITY_RETENTION_DAYS,
  };
}
