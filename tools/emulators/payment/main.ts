// Runs the payment emulator on its own: npx tsx tools/emulators/payment/main.ts [port]
// Then start the service with PAYMENT_API_BASE=<printed url> PAYMENT_SECRET_KEY=sk_test_anything.
// Webhooks go to PAYMENT_WEBHOOK_URL (e.g. http://localhost:3000/api/payments/webhooks), signed
// with PAYMENT_WEBHOOK_SECRET (the service's own); without a URL events are only recorded
// (GET /__admin/events).
import { startPaymentEmulator } from './server.js';

const emulator = await startPaymentEmulator({
  port: Number(process.argv[2] ?? 0),
  webhookUrl: process.env.PAYMENT_WEBHOOK_URL || undefined,
  webhookSecret: process.env.PAYMENT_WEBHOOK_SECRET || undefined,
});
console.log(`Payment emulator listening on ${emulator.url}`);
if (process.env.PAYMENT_WEBHOOK_URL) console.log(`Webhooks to ${process.env.PAYMENT_WEBHOOK_URL}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    emulator.close().then(() => process.exit(0));
  });
}
