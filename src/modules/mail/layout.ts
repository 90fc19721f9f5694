import type { Branding } from './schemas.js';

/**
 * A mail's frame in plain text and HTML, with the organisation's branding (name, logo,
 * colour). Every value that came from a person is escaped in the HTML; nothing here builds
 * a header.
 */

export interface Rendered {
  subject: string;
  text: string;
  html: string;
}

export interface Content {
  subject: string;
  heading: string;
  paragraphs: string[];
  details: Array<[label: string, value: string]>;
  /** The mail's one button. */
  action?: { label: string; url: string };
  /** A second, plainer link below the button. */
  link?: { label: string; url: string };
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );

/** Only http(s) links are ever rendered as links (a stored URL is data, not markup). */
export const safeUrl = (url: string | null | undefined) => (url && /^https?:\/\//i.test(url) ? url : null);

/** A mail's text and HTML around its content, under a branding's name, colour and footer. */
export function layout(branding: Branding, content: Content): Rendered {
  const footer = [branding.name, branding.address, branding.email].filter(Boolean).join(' · ');
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...content.details.map(([label, value]) => `${label}: ${value}`),
    ...(content.action ? ['', `${content.action.label}: ${content.action.url}`] : []),
    ...(content.link ? ['', `${content.link.label}: ${content.link.url}`] : []),
    '',
    '-- ',
    footer,
    '',
  ].join('\n');

  const colour = /^#[0-9a-f]{6}$/i.test(branding.color) ? branding.color : '#2563eb';
  const logo = safeUrl(branding.logoUrl);
  const action = content.action && safeUrl(content.action.url);
  const link = content.link && safeUrl(content.link.url);
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5;padding:24px 0">
<tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:${colour};padding:20px 24px;color:#ffffff;font-size:20px;font-weight:bold">${
    logo
      ? `<img src="${escapeHtml(logo)}" alt="${escapeHtml(branding.name)}" height="40" style="height:40px;vertical-align:middle;margin-right:12px">`
      : ''
  }${escapeHtml(branding.name)}</td></tr>
<tr><td style="padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>
${content.paragraphs.map((paragraph) => `<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(paragraph)}</p>`).join('\n')}
${
  content.details.length
    ? `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:16px 0;border-collapse:collapse">
${content.details
  .map(
    ([label, value]) =>
      `<tr><td style="padding:4px 16px 4px 0;color:#71717a;vertical-align:top">${escapeHtml(label)}</td><td style="padding:4px 0">${escapeHtml(value)}</td></tr>`,
  )
  .join('\n')}
</table>`
    : ''
}
${
  action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action)}" style="background:${colour};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(content.action!.label)}</a></p>`
    : ''
}
${
  link
    ? `<p style="margin:0 0 12px"><a href="${escapeHtml(link)}" style="color:${colour}">${escapeHtml(content.link!.label)}</a></p>`
    : ''
}
</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #e4e4e7;color:#71717a;font-size:12px">${escapeHtml(footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  return { subject: content.subject, text, html };
}
