import type { Interval } from './engine.js';
import type { Spans } from './spans.js';

/** Numbers `freeTime` may write for a lane: a piece before each block, and one after each opening. */
export const freeTimeRoom = (open: Interval[], busy: Spans) => 2 * open.length + busy.length;
/** Where `freeTime` writes, reused (the engine is synchronous) and grown as lanes need. */
let scratch = new Float64Array(1024);
export function scratchOf(size: number): Float64Array {
  if (scratch.length < size) scratch = new Float64Array(2 * size);
  return scratch;
}

/**
 * Open time of one lane (its opening hours `open`, cut to `within` when given) not blocked
 * by what takes its time (`busy`, each span widened by `bufferMs` on both sides), written
 * to `out` (room for `freeTimeRoom`) as start, end pairs in order where at least `minMs`
 * long; answers how many numbers it wrote. No object per interval, and no array grown
 * push by push: this runs for every lane of every answer.
 */
export function freeTime(
  open: Interval[],
  within: Interval | undefined,
  busy: Spans,
  bufferMs: number,
  minMs: number,
  out: Float64Array,
): number {
  const blocks = busy.length;
  let n = 0;
  let b = 0;
  for (const o of open) {
    let cursor = within ? Math.max(o.start, within.start) : o.start;
    const end = within ? Math.min(o.end, within.end) : o.end;
    if (end <= cursor) continue;
    while (b < blocks && busy[b + 1]! + bufferMs <= cursor) b += 2;
    for (let k = b; k < blocks && busy[k]! - bufferMs < end; k += 2) {
      const blockStart = busy[k]! - bufferMs;
      if (blockStart > cursor && blockStart - cursor >= minMs) {
        out[n++] = cursor;
        out[n++] = blockStart;
      }
      cursor = Math.max(cursor, busy[k + 1]! + bufferMs);
    }
    if (cursor < end && end - cursor >= minMs) {
      out[n++] = cursor;
      out[n++] = end;
    }
  }
  return n;
}
