// Embeds an organisation's booking page on another site:
//   <script src="<FRONTEND_URL>/embed.js" data-slug="<slug>" async></script>
// puts the page in a frame where the script tag is, keeps the frame as tall as the page, and
// passes the page's reservation events on to the host page: a `message` event on the host
// window carrying {type, reservation: {id, startTime, endTime, status}}, and a DOM event of the
// same type (detail: the reservation) on the frame, bubbling up to the document.
// Plain modern JavaScript, no dependencies, served as written (under 5 KB gzipped; test/frontend/embed-script.test.ts).
(() => {
  const script = document.currentScript;
  if (!script?.src) return;
  const slug = script.getAttribute('data-slug') || '';
  if (!slug) {
    console.error('embed.js: data-slug is missing');
    return;
  }
  const origin = new URL(script.src).origin;
  const frame = document.createElement('iframe');
  frame.src = `${origin}/book/${encodeURIComponent(slug)}`;
  frame.title = script.getAttribute('data-title') || 'Booking';
  frame.loading = 'lazy';
  frame.style.cssText = 'display:block;width:100%;height:640px;border:0;overflow:hidden';
  script.parentNode.insertBefore(frame, script.nextSibling);

  const TYPES = ['reservation:created', 'reservation:held', 'reservation:paid'];
  window.addEventListener('message', (event) => {
    // Only the booking page in this very frame speaks here (another frame of the service is another embed's).
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    const data = event.data;
    if (data?.channel !== 'reservation-service:embed') return;
    if (typeof data.height === 'number' && data.height > 0) {
      frame.style.height = `${Math.ceil(data.height)}px`;
      return;
    }
    const sent = data.event;
    if (!sent || TYPES.indexOf(sent.type) < 0 || !sent.reservation) return;
    const r = sent.reservation;
    const reservation = { id: r.id, startTime: r.startTime, endTime: r.endTime, status: r.status };
    // '/': to this very window, on the host's own origin.
    window.postMessage({ type: sent.type, reservation }, '/');
    frame.dispatchEvent(new CustomEvent(sent.type, { detail: reservation, bubbles: true }));
  });
})();
