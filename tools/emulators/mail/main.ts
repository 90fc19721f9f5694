// Runs the mail catcher on its own: npx tsx tools/emulators/mail/main.ts [smtpPort] [httpPort]
// Then start the service with SMTP_URL=<printed SMTP URL>, and read what it sent at
// GET <admin URL>/__admin/messages (DELETE there clears them).
import { startMailCatcher } from './server.js';

const catcher = await startMailCatcher({
  smtpPort: Number(process.argv[2] ?? 0),
  httpPort: Number(process.argv[3] ?? 0),
});
console.log(`Mail catcher: SMTP on ${catcher.smtpUrl}, messages at ${catcher.url}/__admin/messages`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    catcher.close().then(() => process.exit(0));
  });
}
