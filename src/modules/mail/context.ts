import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { OrganisationsService } from '../organisations/service.js';
import type { OutboxConsumerPort } from '../outbox/service.js';
import { createPageLookups, type PageLookups } from './page-lookups.js';
import { createMailPlanner, type MailPlanner } from './plan.js';
import { createMailRepo, type MailRepo } from './repo.js';
import { createSmtpSender, type SmtpSender } from './smtp-sender.js';

const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

export interface MailServiceDeps {
  db: Db;
  config: Config;
  log?: FastifyBaseLogger;
  /** The organisations module: a mail's branding (archived organisations too). */
  organisations: Pick<OrganisationsService, 'organisationById'>;
  /** The outbox: read by the drain, which it runs soon after new events. */
  outbox: Pick<OutboxConsumerPort, 'readAfter' | 'onNewEvents'>;
  /**
   * What the drain awaits before each group, to give way to requests. By default it waits
   * while the event loop is busy or queries queue for a database connection (give-way.ts).
   */
  giveWay?: () => Promise<void>;
}

/** The SMTP sender's thread, made with the first mail. */
export interface LazySmtp {
  /** The sender; throws when mail is off (no SMTP_URL). */
  get(): SmtpSender;
  /** Closes the sender if it was ever made. */
  close(): Promise<void>;
}

/** What every mail use case is built from: the service's dependencies and what they share. */
export interface MailContext extends MailServiceDeps {
  repo: MailRepo;
  planner: MailPlanner;
  /** The reads the drain keeps for the page of events it is on (organisations, types). */
  pageLookups: PageLookups;
  /** MAIL_FROM: whom every mail comes from. */
  sender: { name: string | null; address: string };
  /** The host of calendar UIDs (PUBLIC_URL's). */
  uidHost: string;
  smtp: LazySmtp;
}

/** `Name <address>` or `address`, as MAIL_FROM allows (config.ts checked it). */
function parseMailbox(text: string): { name: string | null; address: string } {
  const match = /^\s*(?:"?([^"<>]*?)"?\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(text);
  const name = match?.[1]?.trim();
  return { name: name || null, address: match?.[2] ?? match?.[3] ?? text };
}

function createLazySmtp(config: Config): LazySmtp {
  let smtp: SmtpSender | undefined;
  return {
    get() {
      if (!config.mail.smtpUrl) throw new Error('Mail is off: SMTP_URL is not set');
      smtp ??= createSmtpSender({ url: config.mail.smtpUrl, timeouts: SMTP_TIMEOUTS });
      return smtp;
    },
    async close() {
      await smtp?.close();
    },
  };
}

export function createMailContext(deps: MailServiceDeps): MailContext {
  const { db, config, log, organisations } = deps;
  const repo = createMailRepo(db.kysely);
  const sender = parseMailbox(config.mail.from);
  const uidHost = new URL(config.publicUrl).hostname;
  const pageLookups = createPageLookups();
  const planner = createMailPlanner({
    repo,
    organisations,
    config,
    lookup: pageLookups.lookup,
    senderAddress: sender.address,
    uidHost,
  });
  if (!config.mail.smtpUrl && config.env === 'production')
    log?.warn('SMTP_URL is not set: no mail is sent (booking confirmations, invitations)');
  return { ...deps, repo, planner, pageLookups, sender, uidHost, smtp: createLazySmtp(config) };
}
