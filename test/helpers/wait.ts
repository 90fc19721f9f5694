// Waiting in tests for what happens elsewhere (another instance, a thread, a server over real
// HTTP), by looking again until it holds: never a fixed sleep standing in for it.
import assert from 'node:assert/strict';

/** Resolves once `check()` holds, looking every 20 ms; fails after `ms`, naming `what` it waited for. */
export async function eventually(
  check: () => Promise<boolean> | boolean,
  ms = 10_000,
  what = 'the condition',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
