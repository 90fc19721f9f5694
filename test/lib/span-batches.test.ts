import assert from 'node:assert/strict';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import { diag, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { type BatchSettings, batchSettings, EncodedBatchSpanProcessor } from '../../src/lib/span-batches.js';
import { type EncodedBatch, encodedSpanExporter, requestOf } from '../../src/lib/span-encoding.js';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.js';

const resource = resourceFromAttributes({
  'service.name': 'batches-under-test',
  'deployment.environment': 'test',
});

/** An exporter that keeps each batch and answers when told (`answer`), or at once. */
function heldExporter({ answerAtOnce = true } = {}) {
  const batches: EncodedBatch[] = [];
  const pending: Array<(result: ExportResult) => void> = [];
  let shutdowns = 0;
  return {
    batches,
    pending,
    get shutdowns() {
      return shutdowns;
    },
    export(batch: EncodedBatch, done: (result: ExportResult) => void) {
      batches.push(batch);
      if (answerAtOnce) done({ code: ExportResultCode.SUCCESS });
      else pending.push(done);
    },
    forceFlush: async () => {},
    shutdown: async () => {
      shutdowns += 1;
    },
  };
}

function tracerWith(processor: EncodedBatchSpanProcessor, scope = 'reservation-service'): Tracer {
  return new BasicTracerProvider({ resource, spanProcessors: [processor] }).getTracer(scope, '1.2.3');
}

/** A request span with a query under it, one failed with an exception event, one with a link. */
function someSpans(tracer: Tracer): ReadableSpan[] {
  const request = tracer.startSpan('POST /api/reservations', {
    kind: SpanKind.SERVER,
    attributes: {
      'http.request.method': 'POST',
      'http.response.status_code': 201,
      'url.path': '/api/reservations',
    },
  });
  const query = tracer.startSpan(
    'INSERT reservations',
    { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'sqlite', ratio: 0.5, 'naïve é': true } },
    trace.setSpan(ROOT_CONTEXT, request),
  );
  const failed = tracer.startSpan('process mail', { kind: SpanKind.CONSUMER, root: true });
  failed.recordException(new Error('the relay refused "it"'));
  failed.setStatus({ code: SpanStatusCode.ERROR, message: 'refused' });
  const linked = tracer.startSpan('tools/call', { links: [{ context: request.spanContext() }] });
  const spans = [request, query, failed, linked];
  for (const span of spans) span.end();
  return spans as unknown as ReadableSpan[];
}

/** Every object reachable from `root` (Buffers are leaves): what the processor holds on to. */
function reachable(root: object): unknown[] {
  const seen = new Set<unknown>();
  const walk = (value: unknown) => {
    if (typeof value !== 'object' || value === null || seen.has(value) || Buffer.isBuffer(value)) return;
    seen.add(value);
    for (const key of Reflect.ownKeys(value)) walk((value as Record<PropertyKey, unknown>)[key]);
  };
  walk(root);
  return [...seen];
}

const settings = (given: Partial<BatchSettings>): Partial<BatchSettings> => ({
  maxExportBatchSize: 512,
  maxQueueSize: 2048,
  scheduledDelayMillis: 5000,
  exportTimeoutMillis: 30_000,
  ...given,
});

describe('spans encoded as they end', () => {
  test('the queue holds each span as its encoded JSON only, no span object', () => {
    const exporter = heldExporter();
    const processor = new EncodedBatchSpanProcessor(exporter, settings({}));
    const spans = someSpans(tracerWith(processor));

    const queued = processor.queued();
    assert.equal(queued.length, spans.length);
    for (const [i, encoded] of queued.entries()) {
      assert.ok(Buffer.isBuffer(encoded), 'an encoded span is a Buffer');
      const json = JSON.parse(encoded.toString('utf8')) as { spanId: string; name: string };
      assert.equal(json.spanId, spans[i]!.spanContext().spanId);
      assert.equal(json.name, spans[i]!.name);
    }
    const spanObjects = reachable(processor).filter(
      (value) => typeof (value as { spanContext?: unknown }).spanContext === 'function',
    );
    assert.deepEqual(spanObjects, [], 'no span is reachable from the processor');
    assert.equal(exporter.batches.length, 0, 'nothing sent before the delay');
  });

  test('a batch request is the SDK serializer request of the same spans, byte for byte', async () => {
    const exporter = heldExporter();
    const processor = new EncodedBatchSpanProcessor(exporter, settings({}));
    const spans = someSpans(tracerWith(processor));
    await processor.forceFlush();

    assert.equal(exporter.batches.length, 1);
    const ours = Buffer.from(requestOf(exporter.batches[0]!)).toString('utf8');
    const sdks = Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8');
    assert.equal(ours, sdks);
  });
});

describe('batches as the SDK BatchSpanProcessor makes them', () => {
  afterEach(() => mock.timers.reset());

  test('a full batch leaves at once, the rest after the delay; shutdown sends what waits', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const exporter = heldExporter();
    const processor = new EncodedBatchSpanProcessor(exporter, settings({ maxExportBatchSize: 3 }));
    const tracer = tracerWith(processor);
    const end = (name: string) => tracer.startSpan(name).end();

    for (const name of ['a', 'b', 'c']) end(name);
    assert.deepEqual(
      exporter.batches.map((batch) => batch.spans.length),
      [3],
    );
    await new Promise((resolve) => setImmediate(resolve)); // the export's answer settles
    end('d');
    mock.timers.tick(4999);
    assert.equal(exporter.batches.length, 1, 'not before the delay');
    mock.timers.tick(1);
    assert.deepEqual(
      exporter.batches.map((batch) => batch.spans.length),
      [3, 1],
    );

    end('e');
    await processor.shutdown();
    assert.deepEqual(
      exporter.batches.map((batch) => batch.spans.length),
      [3, 1, 1],
    );
    assert.equal(exporter.shutdowns, 1);
    end('after');
    assert.equal(processor.queued().length, 0, 'a span ended after shutdown is not kept');
  });

  test('past the queue limit spans are dropped, and counted in a warning once there is room', async () => {
    const exporter = heldExporter({ answerAtOnce: false });
    const processor = new EncodedBatchSpanProcessor(
      exporter,
      settings({ maxExportBatchSize: 2, maxQueueSize: 4 }),
    );
    const tracer = tracerWith(processor);
    const warnings: string[] = [];
    diag.setLogger({
      warn: (m: string) => warnings.push(m),
      error() {},
      info() {},
      debug() {},
      verbose() {},
    });
    try {
      // 2 leave at once (the export is held), 4 fill the queue, 3 are dropped
      for (let i = 0; i < 9; i += 1) tracer.startSpan(`s${i}`).end();
      assert.equal(exporter.batches.length, 1, 'one export at a time');
      assert.equal(processor.queued().length, 4);
      exporter.pending.shift()!({ code: ExportResultCode.SUCCESS });
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(exporter.batches.length, 2, 'the next full batch follows the answer');
      tracer.startSpan('room again').end();
      assert.deepEqual(warnings, [
        'tracing: 3 spans dropped, the queue being full (OTEL_BSP_MAX_QUEUE_SIZE)',
      ]);
      assert.equal(processor.queued().length, 3);
    } finally {
      diag.disable();
    }
  });

  test('OTEL_BSP_* variables are read as the SDK reads them, under what the code gives', () => {
    const saved = { ...process.env };
    try {
      process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE = '64';
      process.env.OTEL_BSP_MAX_QUEUE_SIZE = '256';
      process.env.OTEL_BSP_SCHEDULE_DELAY = '250';
      process.env.OTEL_BSP_EXPORT_TIMEOUT = '1000';
      assert.deepEqual(batchSettings(), {
        maxExportBatchSize: 64,
        maxQueueSize: 256,
        scheduledDelayMillis: 250,
        exportTimeoutMillis: 1000,
      });
      assert.equal(batchSettings({ scheduledDelayMillis: 10 }).scheduledDelayMillis, 10);
      process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE = '1000';
      assert.equal(batchSettings().maxExportBatchSize, 256, 'a batch never larger than the queue');
      for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_BSP_')) delete process.env[name];
      assert.deepEqual(batchSettings(), {
        maxExportBatchSize: 512,
        maxQueueSize: 2048,
        scheduledDelayMillis: 5000,
        exportTimeoutMillis: 30_000,
      });
    } finally {
      process.env = saved;
    }
  });
});

describe('encoded batches over OTLP/HTTP', () => {
  let otlp: OtlpReceiver;
  before(async () => {
    otlp = await startOtlpReceiver();
  });
  after(() => otlp.close());

  test('a batch posted to a receiver decodes to the same spans, two scopes interleaved', async () => {
    const exporter = encodedSpanExporter(`${otlp.endpoint}/v1/traces`, { 'x-collector-key': 'key' });
    const processor = new EncodedBatchSpanProcessor(exporter, settings({}));
    const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
    const first = someSpans(provider.getTracer('reservation-service', '1.2.3'));
    const other = someSpans(provider.getTracer('other-scope'));
    const more = someSpans(provider.getTracer('reservation-service', '1.2.3'));
    await processor.shutdown();

    assert.equal(otlp.bodies.length, 1, 'one request');
    assert.equal(otlp.requests[0]?.headers['x-collector-key'], 'key');
    const expected = JSON.parse(
      Buffer.from(JsonTraceSerializer.serializeRequest([...first, ...other, ...more])!).toString('utf8'),
    ) as { resourceSpans: Array<{ scopeSpans: Array<{ scope: unknown; spans: unknown[] }> }> };
    const received = JSON.parse(otlp.bodies[0]!) as typeof expected;
    // The same spans under the same resource and scopes; a scope's runs may be entries apart.
    const byScope = (body: typeof expected) =>
      body.resourceSpans
        .flatMap((entry) =>
          entry.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ scope: scope.scope, span }))),
        )
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    assert.deepEqual(byScope(received), byScope(expected));
    assert.equal(otlp.spans.length, 12);
    assert.ok(otlp.spans.every((span) => span.resource['service.name'] === 'batches-under-test'));
  });
});
