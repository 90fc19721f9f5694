import { defineModule } from '../../module.js';
import { paymentsPrivacy } from './privacy.js';
import { paymentWebhookRoutes } from './routes.js';
import { createPaymentsService, type PaymentsService } from './service.js';
import type { PaymentTables } from './tables.js';

declare module '../../module.js' {
  interface Services {
    payments: PaymentsService;
  }
}

declare module '../../db/types.js' {
  interface Database extends PaymentTables {}
}

export const paymentsModule = defineModule({
  name: 'payments',
  tables: ['organisationPaymentAccounts', 'paymentEvents'],
  service: (deps, { organisations }) => createPaymentsService({ ...deps, organisations }),
  // Its connection routes (/api/organisations/:id/payment/...) are registered by the organisations routes.
  routes: [{ prefix: '/api/payments', plugin: paymentWebhookRoutes }],
  privacy: paymentsPrivacy,
});
