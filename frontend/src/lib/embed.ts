// The booking page inside another site's frame (`<FRONTEND_URL>/embed.js`): it tells the frame's
// parent its height and what was booked, and only a parent among the organisation's embed origins
// hears it. embed.js checks the sender in turn (the service's origin, its own frame) and passes the
// events on to the host page as `{type, reservation}`.

export type ReservationEventType = 'reservation:created' | 'reservation:held' | 'reservation:paid';

/** What a host page learns of a reservation: no customer, no manage token. */
export interface EmbeddedReservation {
  id: number;
  startTime: string;
  endTime: string;
  status: string;
}

/** Marks the page's messages to embed.js, so a host's own listener never mistakes them for its events. */
const CHANNEL = 'reservation-service:embed';

/** The origins the parent may have (the organisation's embed origins); null when not framed. */
let allowedParents: readonly string[] | null = null;

const originOf = (url: string) => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};

/**
 * Where messages to the parent may go: the parent's own origin when the browser tells it (and the
 * organisation allows it), else each allowed origin (the browser delivers to the one that matches).
 */
function targetOrigins(): readonly string[] {
  if (!allowedParents) return [];
  const parent = window.location.ancestorOrigins?.[0] ?? originOf(document.referrer);
  if (parent) return allowedParents.includes(parent) ? [parent] : [];
  return allowedParents;
}

function postToParent(message: Record<string, unknown>) {
  for (const origin of targetOrigins()) window.parent.postMessage({ channel: CHANNEL, ...message }, origin);
}

/**
 * A link followed from the framed page opens in a tab of its own: the pages it leads to (the
 * manage page, another site) may not be framed. Another booking page stays in the frame; a
 * download stays a download.
 */
function linksOutOfFrame(event: MouseEvent) {
  const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
  if (!(link instanceof HTMLAnchorElement) || link.target || link.hasAttribute('download')) return;
  if (link.origin === window.location.origin && link.pathname.startsWith('/book/')) return;
  link.target = '_blank';
  link.rel = 'noopener';
}

/** Whether the page is shown inside another page's frame. */
export const isFramed = () => window.parent !== window;

/**
 * Starts the embedded mode when the page is framed (a no-op otherwise): the page loses its
 * full-window height and reports its own height whenever it changes. Answers the stop function.
 */
export function startEmbedding(embedOrigins: readonly string[]): () => void {
  if (!isFramed() || embedOrigins.length === 0) return () => {};
  allowedParents = embedOrigins;
  document.documentElement.classList.add('embedded');
  let last = -1;
  const report = () => {
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    postToParent({ height });
  };
  const observer = new ResizeObserver(report);
  observer.observe(document.body);
  report();
  document.addEventListener('click', linksOutOfFrame, true);
  return () => {
    observer.disconnect();
    document.removeEventListener('click', linksOutOfFrame, true);
    allowedParents = null;
    document.documentElement.classList.remove('embedded');
  };
}

/** Tells the embedding page of a reservation (nothing happens when the page is not embedded). */
export function postReservationEvent(type: ReservationEventType, reservation: EmbeddedReservation) {
  const { id, startTime, endTime, status } = reservation;
  postToParent({ event: { type, reservation: { id, startTime, endTime, status } } });
}
