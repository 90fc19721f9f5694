import { context, diag, TraceFlags } from '@opentelemetry/api';
import {
  BindOnceFuture,
  ExportResultCode,
  getNumberFromEnv,
  globalErrorHandler,
  suppressTracing,
} from '@opentelemetry/core';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type EncodedSpanExporter, type Envelope, SpanEncoder } from './span-encoding.js';

/** The SDK's BatchSpanProcessor settings, and their OTEL_BSP_* variables. */
export interface BatchSettings {
  maxExportBatchSize: number;
  maxQueueSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
}

const DEFAULTS: BatchSettings = {
  maxExportBatchSize: 512,
  maxQueueSize: 2048,
  scheduledDelayMillis: 5000,
  exportTimeoutMillis: 30_000,
};
const VARIABLES: Record<keyof BatchSettings, string> = {
  maxExportBatchSize: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
  maxQueueSize: 'OTEL_BSP_MAX_QUEUE_SIZE',
  scheduledDelayMillis: 'OTEL_BSP_SCHEDULE_DELAY',
  exportTimeoutMillis: 'OTEL_BSP_EXPORT_TIMEOUT',
};

/** `given` over the OTEL_BSP_* variables over the SDK's defaults, as its BatchSpanProcessor reads them. */
export function batchSettings(given: Partial<BatchSettings> = {}): BatchSettings {
  const settings = { ...DEFAULTS };
  for (const key of Object.keys(VARIABLES) as Array<keyof BatchSettings>)
    settings[key] = given[key] ?? getNumberFromEnv(VARIABLES[key]) ?? DEFAULTS[key];
  if (settings.maxExportBatchSize > settings.maxQueueSize) {
    diag.warn('tracing: OTEL_BSP_MAX_EXPORT_BATCH_SIZE above OTEL_BSP_MAX_QUEUE_SIZE, the queue size used');
    settings.maxExportBatchSize = settings.maxQueueSize;
  }
  return settings;
}

/**
 * The SDK's BatchSpanProcessor, but keeping each finished span only as its encoded OTLP/JSON
 * (src/lib/span-encoding.ts; docs/decisions.md, "Spans encoded as they end"): a span object
 * kept until its batch leaves outlives the young generation, and promoting it and its attributes,
 * events and context doubled the collections' cost; its bytes are one small object. Otherwise as
 * the SDK's: a batch leaves when `maxExportBatchSize` spans wait or `scheduledDelayMillis` after
 * the first, one export at a time; spans past `maxQueueSize` are dropped and counted; an export
 * not answered in `exportTimeoutMillis` frees the next; `forceFlush` and `shutdown` send them all.
 */
export class EncodedBatchSpanProcessor implements SpanProcessor {
  private readonly settings: BatchSettings;
  private readonly encoder = new SpanEncoder();
  private envelopes: Envelope[] = [];
  private spans: Buffer[] = [];
  private exporting = false;
  private timer: NodeJS.Timeout | undefined;
  private dropped = 0;
  private readonly shutdownOnce: BindOnceFuture<void>;

  constructor(
    private readonly exporter: EncodedSpanExporter,
    settings: Partial<BatchSettings> = {},
  ) {
    this.settings = batchSettings(settings);
    this.shutdownOnce = new BindOnceFuture(this.closeDown, this);
  }

  /** What waits for export: the spans' encoded JSON, nothing else (a test's view). */
  queued(): readonly Buffer[] {
    return this.spans;
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.shutdownOnce.isCalled || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.spans.length >= this.settings.maxQueueSize) {
      if (this.dropped === 0) diag.debug('tracing: the span queue is full, spans dropped');
      this.dropped += 1;
      return;
    }
    if (this.dropped > 0) {
      diag.warn(`tracing: ${this.dropped} spans dropped, the queue being full (OTEL_BSP_MAX_QUEUE_SIZE)`);
      this.dropped = 0;
    }
    let encoded: ReturnType<SpanEncoder['encode']>;
    try {
      encoded = this.encoder.encode(span);
    } catch (error) {
      diag.warn(`tracing: a span could not be encoded: ${error}`);
    }
    if (!encoded) return;
    this.envelopes.push(encoded.envelope);
    this.spans.push(encoded.json);
    this.maybeStartTimer();
  }

  forceFlush(): Promise<void> {
    return this.shutdownOnce.isCalled ? this.shutdownOnce.promise : this.flushAll();
  }

  shutdown(): Promise<void> {
    return this.shutdownOnce.call();
  }

  private async closeDown(): Promise<void> {
    await this.flushAll();
    await this.exporter.shutdown();
  }

  /** Every span waiting, in batches sent together. */
  private async flushAll(): Promise<void> {
    const batches = Math.ceil(this.spans.length / this.settings.maxExportBatchSize);
    await Promise.all(Array.from({ length: batches }, () => this.flushOneBatch()));
  }

  private flushOneBatch(): Promise<void> {
    this.clearTimer();
    if (this.spans.length === 0) return Promise.resolve();
    const size = this.settings.maxExportBatchSize;
    const batch =
      this.spans.length <= size
        ? { envelopes: this.envelopes, spans: this.spans }
        : { envelopes: this.envelopes.splice(0, size), spans: this.spans.splice(0, size) };
    if (batch.spans === this.spans) {
      this.envelopes = [];
      this.spans = [];
    }
    return new Promise((resolve, reject) => {
      // Not waited for any longer: the next batch may start.
      const timer = setTimeout(() => reject(new Error('Timeout')), this.settings.exportTimeoutMillis);
      // The export's own work (its HTTP request) makes no span.
      context.with(suppressTracing(context.active()), () =>
        this.exporter.export(batch, (result) => {
          clearTimeout(timer);
          if (result.code === ExportResultCode.SUCCESS) resolve();
          else reject(result.error ?? new Error('tracing: span export failed'));
        }),
      );
    });
  }

  private maybeStartTimer(): void {
    if (this.exporting) return;
    if (this.spans.length >= this.settings.maxExportBatchSize) this.flushNext();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flushNext(), this.settings.scheduledDelayMillis);
      this.timer.unref();
    }
  }

  private flushNext(): void {
    this.exporting = true;
    this.flushOneBatch()
      .catch(globalErrorHandler)
      .finally(() => {
        this.exporting = false;
        if (this.spans.length > 0) {
          this.clearTimer();
          this.maybeStartTimer();
        }
      });
  }

  private clearTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
