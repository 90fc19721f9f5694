import { sweep } from '../../jobs/declarations.js';
import { defineModule } from '../../module.js';
import { mailMigration } from './migrations/0025_mail.js';
import { mailPrivacy } from './privacy.js';
import {
  createMailService,
  DRAIN_EVERY_MINUTES,
  MAIL_DRAIN_JOB,
  MAIL_PURGE_JOB,
  type MailService,
  PURGE_EVERY_MINUTES,
} from './service.js';
import type { MailTables } from './tables.js';

declare module '../../module.js' {
  interface Services {
    mail: MailService;
  }
}

declare module '../../db/types.js' {
  interface Database extends MailTables {}
}

export const mailModule = defineModule({
  name: 'mail',
  tables: ['mailConsumerPositions', 'mailMessages', 'mailCalendarInvitations'],
  service: (deps, services) =>
    createMailService({
      ...deps,
      outbox: services.outbox,
      organisations: services.organisations,
    }),
  privacy: mailPrivacy,
  migrations: { '0025_mail': mailMigration },
  // The drain only where mail is sent (SMTP_URL).
  jobs: ({ drain, purge }, { config }) => [
    ...(config.mail.smtpUrl ? [sweep(MAIL_DRAIN_JOB, DRAIN_EVERY_MINUTES, drain)] : []),
    sweep(MAIL_PURGE_JOB, PURGE_EVERY_MINUTES, purge),
  ],
});
