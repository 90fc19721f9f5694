// Runs the payment emulator on its own: npx tsx tools/emulators/payment/main.ts [port]
// Then start the service with PAYMENT_API_BASE=<printed url> PAYMENT_SECRET_KEY=sk_test_anything.
import { startPaymentEmulator } from './server.js';

const emulator = await startPaymentEmulator({ port: Number(process.argv[2] ?? 0) });
console.log(`Payment emulator listening on ${emulator.url}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    emulator.close().then(() => process.exit(0));
  });
}
