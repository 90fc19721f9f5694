import { z } from 'zod';

/** `a@b.example` or `Display Name <a@b.example>` on one line (a name with a comma is quoted). */
const mailbox = z.string().transform((text, ctx) => {
  const match = /^\s*(?:("[^"\r\n]*"|[^<>"\r\n,;]*?)\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(text);
  const address = match?.[2] ?? match?.[3];
  if (!address || !z.email().safeParse(address).success) {
    ctx.addIssue({ code: 'custom', message: 'not a mailbox' });
    return z.NEVER;
  }
  return text.trim();
});

/** The SMTP server mail leaves through, and its sender. */
export const mailEnv = z.object({
  SMTP_URL: z
    .url({ protocol: /^smtps?$/, message: 'must be an smtp:// or smtps:// URL' })
    .optional()
    .describe('Unset: no mail (development starts the bundled mail catcher instead)'),
  MAIL_FROM: z
    .string()
    .max(320)
    .refine(
      (text) => mailbox.safeParse(text).success,
      'must be an email address, or a display name and an address: Shop <no-reply@shop.example>',
    )
    .optional(),
});

export interface MailConfig {
  /** Unset: mail is off (development starts the bundled mail catcher instead; production warns). */
  smtpUrl: string | undefined;
  /** The From of every mail: `no-reply@<PUBLIC_URL host>` unless MAIL_FROM says otherwise. */
  from: string;
}

export function mailConfig(e: z.output<typeof mailEnv>, publicUrl: string): MailConfig {
  return {
    smtpUrl: e.SMTP_URL,
    from: e.MAIL_FROM?.trim() ?? `no-reply@${new URL(publicUrl).hostname}`,
  };
}
