// Booking page benchmark (issue 27): how soon a customer sees free times, in Chromium (the
// system one, through playwright-core), against the service started as `npm start` starts
// it, on SQLite and on PostgreSQL. Measured by the browser's own performance entries: the
// Element Timing entry of the first time button (`elementtiming="first-slot"`), relative to
// navigation start; the JavaScript transferred on a first load (Resource Timing). Cold: a
// new browser context each load (empty cache); warm: the same context again (cached assets,
// fresh HTML and API answers). Beside it, under autocannon: the page's HTML and its
// availability call, with the bare floor of the same run.
// Budget: slots visible within 1 s on loopback; at most 150 KB of JavaScript gzipped.
// Run: npm run build && npm run bench -- booking-page (BENCH_SKIP_PG=1, BENCH_PAGE_LOADS=20).
import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';
import { api, type LoadRow, load, onBothDatabases, type Server } from './harness.js';

const LOADS = Number(process.env.BENCH_PAGE_LOADS ?? 20);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function seed(base: string) {
  const registered = await api<{ accessToken: string }>(base, 'POST', '/api/auth/register', {
    email: `bench-${randomBytes(4).toString('hex')}@example.test`,
    password: 'benchmark password',
    name: 'Bench',
  });
  const headers = { authorization: `Bearer ${registered.accessToken}` };
  const slug = `bench-${randomBytes(3).toString('hex')}`;
  await api(
    base,
    'POST',
    '/api/organisations',
    { name: 'Bench Salon', slug, timezone: 'Europe/Berlin' },
    headers,
  );
  const type = await api<{ id: number }>(
    base,
    'POST',
    '/api/resource-types',
    { name: 'Haircut', minBookingDuration: 60 },
    headers,
  );
  const resource = await api<{ id: number }>(
    base,
    'POST',
    '/api/resources',
    { name: 'Chair', resourceTypeId: type.id },
    headers,
  );
  return { slug, resourceId: resource.id };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

interface PageLoad {
  slotsMs: number;
  jsTransferBytes: number;
  jsDecodedBytes: number;
}

/**
 * Runs in the page (as text: tsx's helpers do not exist there): waits for the first slot's
 * Element Timing entry and sums the scripts' Resource Timing entries.
 */
const IN_PAGE = `new Promise((resolve) => {
  const done = (entries) => {
    const slot = entries.find((e) => e.identifier === 'first-slot');
    if (!slot) return false;
    const scripts = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('.js'));
    resolve({
      slotsMs: slot.renderTime || slot.startTime,
      jsTransferBytes: scripts.reduce((n, e) => n + e.transferSize, 0),
      jsDecodedBytes: scripts.reduce((n, e) => n + e.decodedBodySize, 0),
    });
    return true;
  };
  new PerformanceObserver((list, observer) => {
    if (done(list.getEntries())) observer.disconnect();
  }).observe({ type: 'element', buffered: true });
})`;

/** One load of the page in `context`: when the first slot painted, and the scripts it fetched. */
async function loadPage(context: import('playwright-core').BrowserContext, url: string): Promise<PageLoad> {
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('button.time').first().waitFor();
  const measured = (await page.evaluate(IN_PAGE)) as PageLoad;
  await page.close();
  return measured;
}

async function browserRows(service: Server, slug: string) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
  const url = `${service.base}/book/${slug}`;
  try {
    const cold: PageLoad[] = [];
    const warm: PageLoad[] = [];
    // One load to start the service's JIT and caches, not counted.
    const warmup = await browser.newContext();
    await loadPage(warmup, url);
    await warmup.close();
    for (let i = 0; i < LOADS; i++) {
      const context = await browser.newContext();
      cold.push(await loadPage(context, url));
      warm.push(await loadPage(context, url));
      await context.close();
    }
    const line = (name: string, loads: PageLoad[]) =>
      `| ${name} | ${loads.length} | ${percentile(
        loads.map((l) => l.slotsMs),
        50,
      ).toFixed(0)} | ${percentile(
        loads.map((l) => l.slotsMs),
        95,
      ).toFixed(0)} | ${Math.max(...loads.map((l) => l.slotsMs)).toFixed(0)} | ${(
        loads[0]!.jsTransferBytes / 1024
      ).toFixed(1)} | ${(loads[0]!.jsDecodedBytes / 1024).toFixed(1)} |`;
    return [
      '| load | n | slots visible p50 ms | p95 ms | max ms | JS transferred KB | JS decoded KB |',
      '|---|---|---|---|---|---|---|',
      line('cold (empty cache)', cold),
      line('warm (cached assets)', warm),
    ].join('\n');
  } finally {
    await browser.close();
  }
}

await onBothDatabases(
  'booking_page',
  async (database, service, floor): Promise<LoadRow[]> => {
    const { slug, resourceId } = await seed(service.base);
    console.log(`\n${database}: the booking page in Chromium\n\n${await browserRows(service, slug)}\n`);
    const from = new Date(Date.now() + 86_400_000).toISOString();
    const to = new Date(Date.now() + 32 * 86_400_000).toISOString();
    return [
      await load({
        title: `${database}: GET /book/<slug> (HTML)`,
        server: service,
        path: `/book/${slug}`,
        // The pages' own origin (localhost): any other loopback name is redirected there.
        headers: { host: `localhost:${new URL(service.base).port}` },
      }),
      await load({
        title: `${database}: the page's availability call (31 days)`,
        server: service,
        path: `/api/public/organisations/${slug}/availability?resourceId=${resourceId}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`,
      }),
      await load({ title: 'floor', server: floor, path: '/' }),
    ];
  },
  'Booking page: the page and its availability call under load\n',
);
