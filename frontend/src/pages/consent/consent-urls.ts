// The consent page's checks on what the client and the service supply: a logo only from https or
// an inline image, web addresses only, and a redirect only back to the registered address.

export const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A logo is shown only from https or an inline image. */
export function safeImageUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol === 'https:') return url.href;
    if (url.protocol === 'data:' && /^data:image\/(png|gif|jpeg|webp|svg\+xml)[;,]/i.test(value))
      return value;
  } catch {
    // not a URL
  }
  return null;
}

export function webUrl(value: string | null | undefined): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** Only a redirect back to the registered address (http or https) is followed. */
export function safeRedirect(value: string, registeredUri: string | null): string | null {
  const target = webUrl(value);
  const registered = webUrl(registeredUri);
  if (!target || !registered) return null;
  if (target.origin !== registered.origin || target.pathname !== registered.pathname) return null;
  return target.href;
}
