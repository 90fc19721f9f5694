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
  /** The language of the words (the HTML's `lang`); `en` when not given. */
  lang?: string;
  heading: string;
  paragraphs: string[];
  details: Array<[label: string, value: string]>;
  /** The mail's one button. */
  action?: { label: string; url: string };
  /** A second, plainer link below the button. */
  link?: { label: string; url: string };
  /** Small links in one line below those ("Add to Google Calendar", ...). */
  moreLinks?: Array<{ label: string; url: string }>;
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );

/** Only http(s) links are ever rendered as links (a stored URL is data, not markup). */
export const safeUrl = (url: string | null | undefined) => (url && /^https?:\/\//i.test(url) ? url : null);

/** The plain-text mail: heading, paragraphs, details, links as `label: url`, and the footer. */
function plainText(content: Content, footer: string): string {
  return [
    content.heading,
    '',
    ...content.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...content.details.map(([label, value]) => `${label}: ${value}`),
    ...(content.action ? ['', `${content.action.label}: ${content.action.url}`] : []),
    ...(content.link ? ['', `${content.link.label}: ${content.link.url}`] : []),
    ...(content.moreLinks?.length ? ['', ...content.moreLinks.map((l) => `${l.label}: ${l.url}`)] : []),
    '',
    '-- ',
    footer,
    '',
  ].join('\n');
}

/** The branding's logo before its name in the header, when it is an http(s) link. */
function logoImage(branding: Branding): string {
  const logo = safeUrl(branding.logoUrl);
  return logo
    ? `<img src="${escapeHtml(logo)}" alt="${escapeHtml(branding.name)}" height="40" style="height:40px;vertical-align:middle;margin-right:12px">`
    : '';
}

/** The details as a two-column table of labels and values; nothing when there are none. */
function detailsTable(details: Content['details']): string {
  if (!details.length) return '';
  return `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:16px 0;border-collapse:collapse">
${details
  .map(
    ([label, value]) =>
      `<tr><td style="padding:4px 16px 4px 0;color:#71717a;vertical-align:top">${escapeHtml(label)}</td><td style="padding:4px 0">${escapeHtml(value)}</td></tr>`,
  )
  .join('\n')}
</table>`;
}

/** The mail's one button, in the branding's colour; nothing without an http(s) link. */
function actionButton(action: Content['action'], colour: string): string {
  const url = action && safeUrl(action.url);
  return url
    ? `<p style="margin:24px 0"><a href="${escapeHtml(url)}" style="background:${colour};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block">${escapeHtml(action!.label)}</a></p>`
    : '';
}

/** The plainer link below the button; nothing without an http(s) link. */
function plainLink(link: Content['link'], colour: string): string {
  const url = link && safeUrl(link.url);
  return url
    ? `<p style="margin:0 0 12px"><a href="${escapeHtml(url)}" style="color:${colour}">${escapeHtml(link!.label)}</a></p>`
    : '';
}

/** The small links in one line; nothing without an http(s) one. */
function smallLinks(links: Content['moreLinks'], colour: string): string {
  const shown = (links ?? []).flatMap((link) => {
    const url = safeUrl(link.url);
    return url ? [`<a href="${escapeHtml(url)}" style="color:${colour}">${escapeHtml(link.label)}</a>`] : [];
  });
  return shown.length ? `<p style="margin:0 0 12px;font-size:14px">${shown.join(' · ')}</p>` : '';
}

/** The HTML mail: a branded header, the content (every value escaped) and the footer. */
function html(branding: Branding, content: Content, footer: string): string {
  const colour = /^#[0-9a-f]{6}$/i.test(branding.color) ? branding.color : '#2563eb';
  return `<!doctype html>
<html lang="${escapeHtml(content.lang ?? 'en')}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5;padding:24px 0">
<tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:${colour};padding:20px 24px;color:#ffffff;font-size:20px;font-weight:bold">${logoImage(branding)}${escapeHtml(branding.name)}</td></tr>
<tr><td style="padding:24px">
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>
${content.paragraphs.map((paragraph) => `<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(paragraph)}</p>`).join('\n')}
${detailsTable(content.details)}
${actionButton(content.action, colour)}
${plainLink(content.link, colour)}
${smallLinks(content.moreLinks, colour)}
</td></tr>
<tr><td style="padding:16px 24px;border-top:1px solid #e4e4e7;color:#71717a;font-size:12px">${escapeHtml(footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

/** A mail's text and HTML around its content, under a branding's name, colour and footer. */
export function layout(branding: Branding, content: Content): Rendered {
  const footer = [branding.name, branding.address, branding.email].filter(Boolean).join(' · ');
  return {
    subject: content.subject,
    text: plainText(content, footer),
    html: html(branding, content, footer),
  };
}
