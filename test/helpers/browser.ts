// What every browser test shares (test/browser/*.browser.ts): a free port for the server under
// test, and the check of each page at a phone's and a desktop's width.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

/** Where the pages' screenshots go (kept as CI artifacts; the README names the folder). */
export const SCREENSHOTS = join(PROJECT_ROOT, 'test-artifacts', 'screenshots');

/** A port nothing listens on now, on loopback. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** No serious or critical axe violation on the page as it is now. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    what,
  );
}

/**
 * The page at 360 and 1280 px: no serious or critical axe violation, no sideways scrolling,
 * and a screenshot `<name>-<width>.png` under SCREENSHOTS; the viewport is left at 1280 px.
 */
export async function checkAtBothWidths(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await assertAccessible(page, `${name} at ${width} px`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} at ${width} px: no sideways scrolling (${overflow} px too wide)`);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
