// Writes that take turns go together while one is on its way (src/db/turn-groups.ts). A group
// the database refused was not written, so its writes go one by one; a group whose answer was
// lost may have been written, so its writes fail rather than risk writing twice.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { turnGroups } from '../../src/db/turn-groups.js';

/** A write kept waiting until `release`d, with the calls made of `alone` and `together`. */
function recorder(groupFailure?: Error, most?: number) {
  const calls: string[] = [];
  let release = () => {};
  const first = new Promise<void>((resolve) => {
    release = resolve;
  });
  const turns = turnGroups(
    async (input: number) => {
      calls.push(`alone ${input}`);
      if (input === 1) await first;
      return input * 10;
    },
    async (key: string, inputs: number[]) => {
      calls.push(`together ${key} ${inputs.join(',')}`);
      if (groupFailure) throw groupFailure;
      return inputs.map((input) => input * 100);
    },
    most,
  );
  return { calls, turns, release: () => release() };
}

const settled = (promises: Promise<number>[]) =>
  Promise.allSettled(promises).then((results) =>
    results.map((result) =>
      result.status === 'fulfilled' ? result.value : (result.reason as Error).message,
    ),
  );

describe('turn groups', () => {
  test('the writes arriving while one is on its way go together, in order of arrival; other keys do not wait', async () => {
    const { calls, turns, release } = recorder();
    const writes = [1, 2, 3, 4].map((input) => turns.write('a', input));
    const other = await turns.write('b', 5);
    assert.equal(other, 50, 'another key went alone at once');
    release();
    assert.deepEqual(await settled(writes), [10, 200, 300, 400]);
    assert.deepEqual(calls, ['alone 1', 'alone 5', 'together a 2,3,4']);
    // The key is free again: the next write goes alone.
    assert.equal(await turns.write('a', 6), 60);
  });

  test('a group the database refused goes one by one', async () => {
    const refused = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const { calls, turns, release } = recorder(refused);
    const writes = [1, 2, 3].map((input) => turns.write('a', input));
    release();
    assert.deepEqual(await settled(writes), [10, 20, 30]);
    assert.deepEqual(calls, ['alone 1', 'together a 2,3', 'alone 2', 'alone 3']);
  });

  test('a group whose answer was lost fails, none of it written again', async () => {
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    const { calls, turns, release } = recorder(lost);
    const writes = [1, 2, 3].map((input) => turns.write('a', input));
    release();
    assert.deepEqual(await settled(writes), [10, lost.message, lost.message]);
    assert.deepEqual(calls, ['alone 1', 'together a 2,3']);
  });

  test('a group holds at most `most` writes; the rest go as the next group, in order', async () => {
    const { calls, turns, release } = recorder(undefined, 2);
    const writes = [1, 2, 3, 4, 5].map((input) => turns.write('a', input));
    release();
    assert.deepEqual(await settled(writes), [10, 200, 300, 400, 500]);
    assert.deepEqual(calls, ['alone 1', 'together a 2,3', 'together a 4,5']);
  });
});
