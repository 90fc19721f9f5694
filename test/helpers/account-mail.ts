import type { CaughtMessage, MailCatcher } from '../../tools/emulators/mail/server.js';

/**
 * The newest mail the catcher holds for `to` whose subject matches, waiting up to
 * `timeoutMs` for it: account mails go out after the answer, in the background.
 */
export async function mailTo(
  catcher: MailCatcher,
  to: string,
  subject: RegExp,
  timeoutMs = 5_000,
): Promise<CaughtMessage> {
  // performance.now: tests that fake Date still time out.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = (await catcher.messages())
      .filter((message) => message.envelope.to.includes(to) && subject.test(message.subject ?? ''))
      .at(-1);
    if (found) return found;
    if (performance.now() > deadline) throw new Error(`No mail to ${to} matching ${subject}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The token of the link to `page` in a mail's text (`<FRONTEND_URL>/<page>/<token>`). */
export function tokenIn(message: CaughtMessage, page: 'verify-email' | 'reset-password'): string {
  const match = new RegExp(`http://frontend\\.test/${page}/([A-Za-z0-9_-]+)`).exec(message.text ?? '');
  if (!match) throw new Error(`No ${page} link in: ${message.text}`);
  return match[1]!;
}

/**
 * The catcher's mails less the address confirmations every registration sends (in the
 * background, so a test cannot clear them away first): what a test about other mail counts.
 */
export async function mailsBesidesSignUps(catcher: MailCatcher): Promise<CaughtMessage[]> {
  return (await catcher.messages()).filter((message) => message.subject !== 'Confirm your email address');
}
