// The payment emulator's outgoing webhooks: events signed as the provider signs them,
// delivered to one configured URL, each attempt recorded. The emulator plays the
// provider, so it signs here itself and imports nothing from the service.
import { createHmac } from 'node:crypto';
import { post } from '../calendar-common/http.js';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the `Payment-Signature` header. */
export function paymentSignatureHeader(
  secret: string,
  body: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface WebhookDelivery {
  eventId: string;
  /** ISO time of the attempt. */
  at: string;
  /** The receiver's status; null when it did not answer (refused, timed out). */
  status: number | null;
  error: string | null;
}

/** An event as sent: `body` is the exact JSON every delivery of it carries. */
export interface RecordedEvent {
  id: string;
  type: string;
  body: string;
  deliveries: WebhookDelivery[];
}

/**
 * Deliveries to the webhook URL, one attempt per `send` (a receiver that fails is not
 * retried on its own; `/__admin/events/:id/resend` sends again). While held, events queue
 * and `release` delivers them in order: late deliveries, for tests.
 */
export class WebhookOutbox {
  private url: string | null = null;
  private held: RecordedEvent[] | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly secret: string | undefined,
    private readonly timeoutMs: number,
    url: string | undefined,
  ) {
    this.setUrl(url ?? null);
  }

  setUrl(url: string | null): void {
    if (url !== null && !this.secret) throw new Error('A webhook URL needs a webhook secret');
    if (url !== null && !/^https?:\/\//.test(url)) throw new Error(`Not an http(s) URL: ${url}`);
    this.url = url;
  }

  /** Delivers now (or queues while held); null when nothing was attempted. */
  send(event: RecordedEvent): Promise<WebhookDelivery | null> {
    if (this.held) {
      this.held.push(event);
      return Promise.resolve(null);
    }
    const attempt = this.attempt(event);
    this.inFlight.add(attempt);
    const done = () => this.inFlight.delete(attempt);
    attempt.then(done, done);
    return attempt;
  }

  hold(): void {
    this.held ??= [];
  }

  async release(): Promise<WebhookDelivery[]> {
    const queued = this.held ?? [];
    this.held = null;
    const deliveries: WebhookDelivery[] = [];
    for (const event of queued) {
      const delivery = await this.send(event);
      if (delivery) deliveries.push(delivery);
    }
    return deliveries;
  }

  /** Resolves once no delivery is in flight (events sent in the background included). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Drops queued events and stops holding. */
  reset(): void {
    this.held = null;
  }

  private async attempt(event: RecordedEvent): Promise<WebhookDelivery | null> {
    if (!this.url || !this.secret) return null;
    const at = new Date().toISOString();
    const result = await post(this.url, {
      headers: {
        'content-type': 'application/json',
        'payment-signature': paymentSignatureHeader(this.secret, event.body),
        'user-agent': 'payment-provider-emulator',
      },
      body: event.body,
      timeoutMs: this.timeoutMs,
    });
    const delivery = { eventId: event.id, at, status: result.status, error: result.error };
    event.deliveries.push(delivery);
    return delivery;
  }
}
