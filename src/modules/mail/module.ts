import { defineModule } from '../../module.js';
import { mailMigration } from './migrations/0025_mail.js';
import { mailPrivacy } from './privacy.js';
import { createMailService, type MailService } from './service.js';
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
});
