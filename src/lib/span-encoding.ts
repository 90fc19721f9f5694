import { diag } from '@opentelemetry/api';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
// The transformer's own span converter and JSON encoding, not exported by its index: what its
// serializer runs for each span (test/lib/span-batches.test.ts compares the two byte for byte).
import { JSON_ENCODER } from '@opentelemetry/otlp-transformer/build/src/common/utils.js';
import { sdkSpanToOtlpSpan } from '@opentelemetry/otlp-transformer/build/src/trace/internal.js';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * Finished spans in their OTLP/JSON form (docs/decisions.md, "Spans encoded as they end"): each
 * span is converted by the SDK's own transformer as it ends and only its JSON is kept; the
 * request around it (the resource and the instrumentation scope, the same for every span of a
 * tracer) is kept once, as its envelope, learned from the SDK's serializer. A batch's request is
 * the envelopes with their spans put back in: what the SDK's exporter would have sent.
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

interface Known {
  resource: ReadableSpan['resource'];
  scope: ReadableSpan['instrumentationScope'];
  envelope: Envelope;
}

/** Encodes spans one by one, each into the envelope of its resource and scope. */
export class SpanEncoder {
  private readonly known: Known[] = [];

  /** The span's own JSON and its envelope; undefined if the transformer made nothing of it. */
  encode(span: ReadableSpan): { envelope: Envelope; json: Buffer } | undefined {
    const { resource, instrumentationScope: scope } = span;
    const envelope =
      this.known.find((known) => known.resource === resource && known.scope === scope)?.envelope ??
      this.learn(span);
    if (envelope)
      return { envelope, json: Buffer.from(JSON.stringify(sdkSpanToOtlpSpan(span, JSON_ENCODER))) };
    // Kept whole: the span's request less its OPEN and CLOSE, in an envelope of its own.
    const request = requestOfOne(span);
    if (!request || !framed(request)) return undefined;
    return {
      envelope: whole(),
      json: Buffer.from(request.subarray(OPEN.length, request.length - CLOSE.length)),
    };
  }

  /**
   * The envelope of a (resource, scope) pair, from the SDK's request of one of its spans: the
   * span's JSON starts after the first `"spans":[` (no key of a resource or scope, and a JSON
   * string cannot hold it unescaped) and must be there byte for byte; undefined otherwise (the
   * span is then kept whole), and not remembered while the resource's attributes may change.
   */
  private learn(span: ReadableSpan): Envelope | undefined {
    const request = requestOfOne(span);
    const start = request?.indexOf(SPANS_KEY) ?? -1;
    if (!request || start < 0 || !framed(request)) return undefined;
    const headLength = start + SPANS_KEY.length;
    const json = Buffer.from(JSON.stringify(sdkSpanToOtlpSpan(span, JSON_ENCODER)));
    const tailStart = headLength + json.length;
    if (request.compare(json, 0, json.length, headLength, tailStart) !== 0) return undefined;
    const envelope = {
      head: Buffer.from(request.subarray(OPEN.length, headLength)),
      tail: Buffer.from(request.subarray(tailStart, request.length - CLOSE.length)),
    };
    if (span.resource.asyncAttributesPending) return envelope;
    if (this.known.length >= ENVELOPES_MAX) this.known.shift();
    this.known.push({ resource: span.resource, scope: span.instrumentationScope, envelope });
    diag.debug(`tracing: a span envelope of ${envelope.head.length + envelope.tail.length} bytes`);
    return envelope;
  }
}

/** The SDK serializer's request of `span` alone. */
function requestOfOne(span: ReadableSpan): Buffer | undefined {
  const bytes = JsonTraceSerializer.serializeRequest([span]);
  return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const EMPTY = Buffer.alloc(0);
/** The envelope of a span kept whole (its own `resourceSpans` entry): one of its own, never shared. */
const whole = (): Envelope => ({ head: EMPTY, tail: EMPTY });

/** Whether `request` is `OPEN` … `CLOSE`, as every request the serializer writes is. */
const framed = (request: Buffer) =>
  request.length > OPEN.length + CLOSE.length &&
  request.compare(OPEN, 0, OPEN.length, 0, OPEN.length) === 0 &&
  request.compare(CLOSE, 0, CLOSE.length, request.length - CLOSE.length) === 0;

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
