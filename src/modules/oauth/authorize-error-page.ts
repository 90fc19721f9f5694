/**
 * What the authorization endpoint answers a refused request with: an HTML page for a browser
 * (nothing is redirected), the JSON envelope for a client whose Accept prefers JSON.
 */

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** The page a browser gets for a refused authorization request: nothing is redirected. */
export function errorPage(message: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Authorization request refused</title></head>
<body>
<main>
<h1>Authorization request refused</h1>
<p>${escapeHtml(message)}</p>
<p>The application that sent you here made a request this service cannot accept, so you are not sent back to it. Close this page and contact the application's developer.</p>
</main>
</body>
</html>
`;
}

// The quality and specificity (2 exact, 1 a `type/*` range, 0 the any range) Accept gives one media type.
function acceptance(accept: string, type: string): { q: number; specificity: number } {
  const [major] = type.split('/');
  let best = { q: 0, specificity: -1 };
  for (const part of accept.split(',')) {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity <= best.specificity) continue;
    const qParameter = parameters.find((parameter) => parameter.startsWith('q='));
    const q = qParameter ? Number(qParameter.slice(2)) : 1;
    best = { q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0, specificity };
  }
  return best;
}

// Whether the caller's Accept header prefers JSON to HTML: a higher quality, or the same
// one named more exactly (`application/json` beside the any range is a JSON client; a
// browser names text/html). No Accept, or a tie, is a browser.
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const json = acceptance(accept, 'application/json');
  const html = acceptance(accept, 'text/html');
  if (json.q === 0) return false;
  return json.q > html.q || (json.q === html.q && json.specificity > html.specificity);
}
