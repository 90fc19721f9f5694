import { buildApp } from './app.js';
import { loadConfigOrExit } from './config.js';
import { startDevelopmentCalendarProviders } from './modules/calendar-sync/providers/dev-emulators.js';
import { startDevelopmentPayments } from './modules/payments/dev-emulator.js';

const config = loadConfigOrExit();

const payments = await startDevelopmentPayments(config);
const calendarProviders = await startDevelopmentCalendarProviders(payments.config);
const app = await buildApp(calendarProviders.config);
if (payments.emulator) {
  const emulator = payments.emulator;
  app.log.warn(
    { paymentApiBase: emulator.url },
    'No payment provider configured (PAYMENT_API_BASE): payments run against the bundled emulator',
  );
  app.addHook('onClose', () => emulator.close());
}
for (const emulator of calendarProviders.emulators) {
  app.log.warn(
    { provider: emulator.provider, url: emulator.url },
    'No calendar provider configured (CALENDAR_PROVIDER_*): calendar sync runs against the bundled emulator',
  );
  app.addHook('onClose', () => emulator.close());
}
await app.listen({ port: config.port, host: config.host });

// Stop accepting, let in-flight requests finish, close the database; give up after 10 s.
let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
