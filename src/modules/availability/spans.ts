/**
 * Intervals as one flat array of instants, `[start0, end0, start1, end1, ...]` (epoch ms,
 * each half-open). A month of a busy lane is hundreds of intervals, read and walked on
 * every answer: as numbers in one array they cost no object each.
 */
export type Spans = Float64Array;
export const NO_SPANS: Spans = new Float64Array(0);

/**
 * `spans` sorted by start, in place (pairs kept together; equal starts in either order). Spans read from the database
 * come in start order, or nearly: a few out of place are moved, more are sorted whole.
 */
export function sortedSpans(spans: Spans): Spans {
  let descents = 0;
  for (let k = 2; k < spans.length; k += 2) if (spans[k]! < spans[k - 2]!) descents++;
  if (descents === 0) return spans;
  if (descents <= 32) {
    // Insertion sort: cheap while few are out of place.
    for (let k = 2; k < spans.length; k += 2) {
      const start = spans[k]!;
      const end = spans[k + 1]!;
      let at = k;
      for (; at > 0 && spans[at - 2]! > start; at -= 2) {
        spans[at] = spans[at - 2]!;
        spans[at + 1] = spans[at - 1]!;
      }
      spans[at] = start;
      spans[at + 1] = end;
    }
    return spans;
  }
  // Bottom-up merge sort of the pairs, by start then end.
  let from: Spans = spans;
  let to: Spans = new Float64Array(spans.length);
  for (let width = 2; width < spans.length; width *= 2) {
    for (let lo = 0; lo < spans.length; lo += 2 * width) {
      const mid = Math.min(lo + width, spans.length);
      const hi = Math.min(lo + 2 * width, spans.length);
      let i = lo;
      let j = mid;
      for (let k = lo; k < hi; k += 2) {
        const left =
          i < mid &&
          (j >= hi || from[i]! < from[j]! || (from[i] === from[j] && from[i + 1]! <= from[j + 1]!));
        const at = left ? i : j;
        to[k] = from[at]!;
        to[k + 1] = from[at + 1]!;
        if (left) i += 2;
        else j += 2;
      }
    }
    [from, to] = [to, from];
  }
  if (from !== spans) spans.set(from);
  return spans;
}

/**
 * The union of spans sorted by start, overlapping or touching ones joined (so the result
 * is by start and none overlaps the next). A single list with no overlap is answered as it
 * is: reservations on a lane touch but never overlap, and answers stay the same whether
 * touching spans are joined or not (the buffer is laid around each, and free time between
 * spans that touch, or overlap once buffered, is none either way).
 */
export function disjointSpans(a: Spans, b: Spans = NO_SPANS): Spans {
  if (b.length === 0 || a.length === 0) {
    const only = a.length === 0 ? b : a;
    let disjoint = true;
    for (let k = 2; disjoint && k < only.length; k += 2) disjoint = only[k]! >= only[k - 1]!;
    if (disjoint) return only;
  }
  const out = new Float64Array(a.length + b.length);
  let n = 0;
  for (let i = 0, j = 0; i < a.length || j < b.length; ) {
    let start: number;
    let end: number;
    if (j >= b.length || (i < a.length && a[i]! <= b[j]!)) {
      start = a[i]!;
      end = a[i + 1]!;
      i += 2;
    } else {
      start = b[j]!;
      end = b[j + 1]!;
      j += 2;
    }
    if (n > 0 && start <= out[n - 1]!) {
      if (end > out[n - 1]!) out[n - 1] = end;
    } else {
      out[n++] = start;
      out[n++] = end;
    }
  }
  return n === out.length ? out : out.subarray(0, n);
}

/** True when some span of `busy` (by start, none overlapping the next) overlaps [start, end). */
export function overlapsAny(busy: Spans, start: number, end: number): boolean {
  // Binary search for the first span ending after `start`: ends rise with starts.
  let lo = 0;
  let hi = busy.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (busy[2 * mid + 1]! <= start) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo < busy.length && busy[2 * lo]! < end;
}
