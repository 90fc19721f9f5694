// The calendar-sync connect is bound to the browser that started it (RFC 6749 section 10.12):
// a consent link sent to someone else connects nothing, whoever approves it at the provider.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { registerUser, type SignedInUser } from '../../helpers/app.js';
import {
  accountOf,
  type Provider,
  type SyncHarness,
  startSyncHarness,
  status,
} from '../../helpers/calendar-sync.js';

const PROVIDERS: Provider[] = ['calendar_provider_a', 'calendar_provider_b'];
const COOKIE = 'calendar_sync_binding';
const callbackPath = (provider: Provider) => `/api/calendar-sync/callback/${provider}`;

/** The raw Set-Cookie line of the binding cookie (undefined when the answer sets none). */
function bindingLine(response: LightMyRequestResponse): string | undefined {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return lines.find((line) => line.startsWith(`${COOKIE}=`));
}

const attributes = (line: string) =>
  line
    .split(';')
    .slice(1)
    .map((part) => part.trim().toLowerCase());

/** A browser's cookie jar, reduced to the one cookie these routes use. */
class Browser {
  binding: string | undefined;

  get cookies(): Record<string, string> {
    return this.binding ? { [COOKIE]: this.binding } : {};
  }

  /** Keeps what a Set-Cookie line tells a browser to keep (an expired cookie is forgotten). */
  take(response: LightMyRequestResponse) {
    const line = bindingLine(response);
    if (!line) return;
    const value = line.slice(COOKIE.length + 1).split(';')[0] ?? '';
    this.binding = value && !attributes(line).includes('max-age=0') ? value : undefined;
  }
}

describe('calendar sync: the connect is bound to the browser that started it', () => {
  let h: SyncHarness;
  before(async () => {
    h = await startSyncHarness();
  });
  after(() => h.stop());

  /** `GET auth/:provider` from `browser` (it keeps the cookie the answer sets). */
  async function startConnect(browser: Browser, user: SignedInUser, provider: Provider) {
    const auth = await h.app.inject({
      method: 'GET',
      url: `/api/calendar-sync/auth/${provider}`,
      headers: user.auth,
      cookies: browser.cookies,
    });
    assert.equal(auth.statusCode, 200, auth.body);
    browser.take(auth);
    return { auth, authUrl: new URL(auth.json().authUrl as string) };
  }

  /** The provider's consent, approved by `who`: answers the callback URL it sends the browser to. */
  async function approve(authUrl: URL, provider: Provider, who: 'alice' | 'bob') {
    const url = new URL(authUrl);
    url.searchParams.set('login_hint', accountOf(provider, who));
    const consent = await fetch(url, { redirect: 'manual' });
    assert.equal(consent.status, 302, await consent.text());
    return new URL(consent.headers.get('location')!);
  }

  async function arrive(browser: Browser, back: URL) {
    const callback = await h.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      cookies: browser.cookies,
    });
    assert.equal(callback.statusCode, 302, callback.body);
    browser.take(callback);
    return { callback, landing: new URL(String(callback.headers.location)) };
  }

  const connectionCount = async () =>
    Number(
      (
        await h.db.kysely
          .selectFrom('calendarSyncConnections')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  for (const provider of PROVIDERS) {
    test(`${provider}: the connect call sets an httpOnly, SameSite=Lax cookie whose path covers the callback`, async () => {
      const user = await registerUser(h.app);
      const { auth, authUrl } = await startConnect(new Browser(), user, provider);
      const line = bindingLine(auth);
      assert.ok(line, 'a binding cookie is set');
      const attrs = attributes(line);
      assert.ok(attrs.includes('httponly'), line);
      assert.ok(attrs.includes('samesite=lax'), line);
      const path = attrs.find((a) => a.startsWith('path='))?.slice('path='.length);
      assert.ok(path, line);
      const callback = new URL(authUrl.searchParams.get('redirect_uri')!).pathname;
      assert.equal(callback, callbackPath(provider));
      assert.ok(callback === path || callback.startsWith(path.endsWith('/') ? path : `${path}/`), line);
      assert.ok(attrs.includes('max-age=600'), line);
      // Plain http here: no Secure (the browser would drop it); https deployments get Secure below.
      assert.ok(!attrs.includes('secure'), line);
      // The cookie is not the state (a state seen in a URL or a log does not give the cookie).
      const value = line.slice(COOKIE.length + 1).split(';')[0]!;
      assert.ok(!value.includes(authUrl.searchParams.get('state')!.split('.')[0]!));
      assert.equal(auth.headers['cache-control'], 'no-store');
    });
  }

  for (const provider of PROVIDERS) {
    test(`${provider}: the browser that started the connect completes it and forgets its binding`, async () => {
      const user = await registerUser(h.app);
      const browser = new Browser();
      const { authUrl } = await startConnect(browser, user, provider);
      const { callback, landing } = await arrive(browser, await approve(authUrl, provider, 'alice'));
      assert.equal(landing.searchParams.get('success'), 'connected', landing.toString());
      assert.equal(landing.searchParams.get('provider'), provider);
      const cleared = bindingLine(callback);
      assert.ok(cleared, 'the spent binding is cleared');
      assert.ok(attributes(cleared).includes(`path=${callbackPath(provider)}`), cleared);
      assert.equal(browser.binding, undefined);
      assert.equal((await status(h.app, user, provider)).isConnected, true);
    });
  }

  for (const provider of PROVIDERS) {
    test(`${provider}: a consent link opened in another browser (no cookie) connects nothing`, async () => {
      const attacker = await registerUser(h.app);
      const before = await connectionCount();
      const { authUrl } = await startConnect(new Browser(), attacker, provider);
      // The attacker sends authUrl to a victim, who approves with their own provider account.
      const victimBrowser = new Browser();
      const back = await approve(authUrl, provider, 'bob');
      assert.ok(back.searchParams.get('code'));
      const { callback, landing } = await arrive(victimBrowser, back);
      assert.equal(`${landing.origin}${landing.pathname}`, 'http://frontend.test/calendar-sync');
      assert.equal(landing.searchParams.get('error'), 'browser_mismatch');
      assert.equal(landing.searchParams.get('provider'), provider);
      assert.equal(landing.searchParams.get('success'), null);
      assert.ok((landing.searchParams.get('message') ?? '').length > 0);
      assert.equal(bindingLine(callback), undefined, 'the victim browser gets no cookie');
      assert.equal((await status(h.app, attacker, provider)).isConnected, false);
      assert.equal(await connectionCount(), before);
      // The state is spent: the same callback from the attacker's own browser later fails too.
      const attackerBrowser = new Browser();
      const { authUrl: second } = await startConnect(attackerBrowser, attacker, provider);
      assert.notEqual(second.searchParams.get('state'), authUrl.searchParams.get('state'));
      const replay = await arrive(attackerBrowser, back);
      assert.equal(replay.landing.searchParams.get('error'), 'invalid_state');
      assert.equal((await status(h.app, attacker, provider)).isConnected, false);
    });
  }

  test("a consent link opened in a browser holding another connect's cookie connects nothing", async () => {
    const provider: Provider = 'calendar_provider_a';
    const attacker = await registerUser(h.app);
    const victim = await registerUser(h.app);
    // The victim has their own connect under way in their browser.
    const victimBrowser = new Browser();
    const own = await startConnect(victimBrowser, victim, provider);
    const ownBinding = victimBrowser.binding;
    assert.ok(ownBinding);
    // ...and opens the attacker's consent link in the same browser.
    const { authUrl } = await startConnect(new Browser(), attacker, provider);
    const { callback, landing } = await arrive(victimBrowser, await approve(authUrl, provider, 'bob'));
    assert.equal(landing.searchParams.get('error'), 'browser_mismatch');
    assert.equal(bindingLine(callback), undefined, "the victim's own binding is left alone");
    assert.equal((await status(h.app, attacker, provider)).isConnected, false);
    assert.equal((await status(h.app, victim, provider)).isConnected, false);
    // The raw state is not a binding either, nor a binding of another state.
    const { authUrl: again } = await startConnect(new Browser(), attacker, provider);
    const forged = new Browser();
    forged.binding = again.searchParams.get('state')!;
    const raw = await arrive(forged, await approve(again, provider, 'bob'));
    assert.equal(raw.landing.searchParams.get('error'), 'browser_mismatch');
    // The victim's own connect still completes in their browser.
    const mine = await arrive(victimBrowser, await approve(own.authUrl, provider, 'alice'));
    assert.equal(mine.landing.searchParams.get('success'), 'connected');
    assert.equal((await status(h.app, victim, provider)).isConnected, true);
    assert.equal((await status(h.app, attacker, provider)).isConnected, false);
  });

  test('several connects under way in one browser (tabs) each complete; the fourth drops the oldest', async () => {
    const provider: Provider = 'calendar_provider_b';
    const user = await registerUser(h.app);
    const browser = new Browser();
    const tabs = [];
    for (let n = 0; n < 4; n += 1) tabs.push((await startConnect(browser, user, provider)).authUrl);
    const [oldest, ...rest] = tabs;
    const dropped = await arrive(browser, await approve(oldest!, provider, 'alice'));
    assert.equal(dropped.landing.searchParams.get('error'), 'browser_mismatch');
    for (const tab of rest.reverse()) {
      const { landing } = await arrive(browser, await approve(tab, provider, 'alice'));
      assert.equal(landing.searchParams.get('success'), 'connected', landing.toString());
    }
    assert.equal(browser.binding, undefined, 'every binding was spent');
  });

  test('a binding for one provider does not complete the other', async () => {
    const user = await registerUser(h.app);
    const browserA = new Browser();
    await startConnect(browserA, user, 'calendar_provider_a');
    const { authUrl } = await startConnect(new Browser(), user, 'calendar_provider_b');
    // Even if a browser sent A's cookie to B's callback (its path keeps it away), it would not match.
    const { landing } = await arrive(browserA, await approve(authUrl, 'calendar_provider_b', 'alice'));
    assert.equal(landing.searchParams.get('error'), 'browser_mismatch');
    assert.equal((await status(h.app, user, 'calendar_provider_b')).isConnected, false);
  });
});

describe('calendar sync binding: deployment details', () => {
  test('an https PUBLIC_URL makes the binding cookie Secure', async () => {
    const h = await startSyncHarness({ env: { PUBLIC_URL: 'https://service.test' } });
    try {
      const user = await registerUser(h.app);
      const auth = await h.app.inject({
        method: 'GET',
        url: '/api/calendar-sync/auth/calendar_provider_a',
        headers: user.auth,
      });
      assert.equal(auth.statusCode, 200, auth.body);
      const line = bindingLine(auth);
      assert.ok(line);
      assert.ok(attributes(line).includes('secure'), line);
    } finally {
      await h.stop();
    }
  });

  test('a token endpoint that cannot be reached: the landing redirect carries no network or resolution detail', async () => {
    // A loopback port with nothing listening: the exchange fails with ECONNREFUSED after
    // `localhost` resolves; none of that may reach the browser.
    const closed = await new Promise<number>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    const h = await startSyncHarness({
      env: { CALENDAR_PROVIDER_A_TOKEN_URL: `http://localhost:${closed}/token` },
    });
    try {
      const user = await registerUser(h.app);
      const auth = await h.app.inject({
        method: 'GET',
        url: '/api/calendar-sync/auth/calendar_provider_a',
        headers: user.auth,
      });
      assert.equal(auth.statusCode, 200, auth.body);
      const cookie = bindingLine(auth)!
        .slice(COOKIE.length + 1)
        .split(';')[0]!;
      const consent = await fetch(auth.json().authUrl, { redirect: 'manual' });
      const back = new URL(consent.headers.get('location')!);
      const callback = await h.app.inject({
        method: 'GET',
        url: `${back.pathname}${back.search}`,
        cookies: { [COOKIE]: cookie },
      });
      assert.equal(callback.statusCode, 302);
      const location = String(callback.headers.location);
      const landing = new URL(location);
      assert.equal(landing.searchParams.get('error'), 'token_exchange_failed');
      const shown = `${decodeURIComponent(location)} ${callback.body}`;
      for (const detail of [
        'localhost',
        '127.0.0.1',
        '::1',
        String(closed),
        'ECONNREFUSED',
        'ENOTFOUND',
        'EAI_AGAIN',
        'getaddrinfo',
        'resolve',
        'fetch failed',
        '/token',
      ])
        assert.ok(!shown.includes(detail), `the redirect shows "${detail}": ${shown}`);
      const item = await status(h.app, user, 'calendar_provider_a');
      assert.equal(item.isConnected, false);
      assert.ok(!JSON.stringify(item).includes(String(closed)));
    } finally {
      await h.stop();
    }
  });
});
