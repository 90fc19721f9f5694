import { diag } from '@opentelemetry/api';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * Finished spans in their OTLP/JSON form (docs/decisions.md, "Spans encoded as they end"): each
 * span is serialized by the SDK's own transformer as it ends, into a request of one span, and
 * only that span's bytes are kept; the request around it (the resource and the instrumentation
 * scope, the same for every span of a tracer) is kept once, as its envelope. A batch's request
 * is the envelopes with their spans put back in: what the SDK's exporter would have sent.
 */

/** A request of one span is `OPEN` `head` span `tail` `CLOSE`: its resource and scope around it. */
export interface Envelope {
  /** `{"resource":…,"scopeSpans":[{"scope":…,"spans":[` (empty for a span kept whole). */
  readonly head: Buffer;
  /** `]}]}` with the schema URLs, if any (empty for a span kept whole). */
  readonly tail: Buffer;
}

/** Spans waiting for export, encoded: `spans[i]` goes into `envelopes[i]`. */
export interface EncodedBatch {
  readonly envelopes: readonly Envelope[];
  readonly spans: readonly Buffer[];
}

const OPEN = Buffer.from('{"resourceSpans":[');
const CLOSE = Buffer.from(']}');
const COMMA = Buffer.from(',');
const SPANS_KEY = '"spans":[';
/** Envelopes remembered: one a (resource, scope) pair, and the service has one of each. */
const ENVELOPES_MAX = 16;

/**
 * Encodes spans one by one. Whether a request of one span fits a known envelope is checked
 * byte for byte each time (its head and tail equal), so a span never goes into the wrong one.
 */
export class SpanEncoder {
  private readonly envelopes: Array<{ envelope: Envelope; head: Buffer; tail: Buffer }> = [];

  /** The span's own JSON and its envelope; undefined if the transformer made nothing of it. */
  encode(span: ReadableSpan): { envelope: Envelope; json: Buffer } | undefined {
    const bytes = JsonTraceSerializer.serializeRequest([span]);
    if (!bytes) return undefined;
    const request = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const known = this.envelopes.find(({ head, tail }) => fits(request, head, tail)) ?? this.learn(request);
    if (!known)
      return framed(request)
        ? { envelope: whole(), json: copy(request, OPEN.length, CLOSE.length) }
        : undefined;
    return { envelope: known.envelope, json: copy(request, known.head.length, known.tail.length) };
  }

  /**
   * The envelope of a request of one span, once a pair: where the span's JSON starts (the first
   * `"spans":[`, which no key of a resource or scope is, and which a JSON string cannot hold
   * unescaped) and how long it is (its JSON written again: parse then stringify gives the same
   * text back). Undefined if the request is not that shape: the span is then kept whole.
   */
  private learn(request: Buffer): { envelope: Envelope; head: Buffer; tail: Buffer } | undefined {
    const start = request.indexOf(SPANS_KEY);
    if (start < 0 || !framed(request)) return undefined;
    const headLength = start + SPANS_KEY.length;
    const parsed = JSON.parse(request.toString('utf8')) as {
      resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }>;
    };
    const spans = parsed.resourceSpans?.[0]?.scopeSpans?.[0]?.spans;
    if (parsed.resourceSpans?.length !== 1 || spans?.length !== 1) return undefined;
    const json = Buffer.from(JSON.stringify(spans[0]));
    if (request.compare(json, 0, json.length, headLength, headLength + json.length) !== 0) return undefined;
    const head = Buffer.from(request.subarray(0, headLength));
    const tail = Buffer.from(request.subarray(headLength + json.length));
    const known = {
      envelope: { head: head.subarray(OPEN.length), tail: tail.subarray(0, tail.length - CLOSE.length) },
      head,
      tail,
    };
    if (this.envelopes.length >= ENVELOPES_MAX) this.envelopes.shift();
    this.envelopes.push(known);
    diag.debug(`tracing: a span envelope of ${head.length + tail.length} bytes`);
    return known;
  }
}

const EMPTY = Buffer.alloc(0);
/** The envelope of a span kept whole (its own `resourceSpans` entry): one of its own, never shared. */
const whole = (): Envelope => ({ head: EMPTY, tail: EMPTY });

/** Whether `request` is `OPEN` … `CLOSE`, as every request the transformer writes is. */
const framed = (request: Buffer) =>
  request.length > OPEN.length + CLOSE.length &&
  request.compare(OPEN, 0, OPEN.length, 0, OPEN.length) === 0 &&
  request.compare(CLOSE, 0, CLOSE.length, request.length - CLOSE.length) === 0;

function fits(request: Buffer, head: Buffer, tail: Buffer): boolean {
  const end = request.length;
  return (
    end > head.length + tail.length &&
    request.compare(head, 0, head.length, 0, head.length) === 0 &&
    request.compare(tail, 0, tail.length, end - tail.length, end) === 0
  );
}

/** `request` less `before` and `after` bytes, in a buffer of its own (small ones share a pool). */
function copy(request: Buffer, before: number, after: number): Buffer {
  const json = Buffer.allocUnsafe(request.length - before - after);
  request.copy(json, 0, before, request.length - after);
  return json;
}

/**
 * A batch's OTLP/JSON request: each run of spans sharing an envelope in one `resourceSpans`
 * entry, as the SDK's exporter groups them.
 */
export function requestOf({ envelopes, spans }: EncodedBatch): Uint8Array {
  const parts: Buffer[] = [OPEN];
  for (let i = 0; i < spans.length; ) {
    const envelope = envelopes[i]!;
    if (i > 0) parts.push(COMMA);
    parts.push(envelope.head, spans[i]!);
    for (i += 1; i < spans.length && envelopes[i] === envelope; i += 1) parts.push(COMMA, spans[i]!);
    parts.push(envelope.tail);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** What the processor exports batches with (the SDK's exporter, given encoded batches). */
export type EncodedSpanExporter = Pick<OTLPExporterBase<EncodedBatch>, 'export' | 'forceFlush' | 'shutdown'>;

/**
 * The SDK's OTLP/HTTP exporter machinery (its options from `url`, `headers` and the OTEL_EXPORTER_*
 * variables, timeout, retries, compression, concurrent-export limit) sending encoded batches,
 * built as the SDK builds its JSON trace exporter, the serializer aside.
 */
export function encodedSpanExporter(url: string, headers: Record<string, string>): EncodedSpanExporter {
  const options = convertLegacyHttpOptions({ url, headers }, 'TRACES', 'v1/traces', {
    'Content-Type': 'application/json',
  });
  const serializer = {
    serializeRequest: requestOf,
    deserializeResponse: JsonTraceSerializer.deserializeResponse,
  };
  const metrics = { name: 'span' as const, countItems: (batch: EncodedBatch) => batch.spans.length };
  return new OTLPExporterBase(
    createOtlpHttpExportDelegate(options, serializer, 'otlp_http_span_exporter', metrics, undefined),
  );
}
