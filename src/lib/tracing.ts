import {
  type Attributes,
  type Context,
  context,
  DiagLogLevel,
  diag,
  propagation,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { SamplerName, TracingConfig } from '../config/telemetry.js';

/**
 * Traces (OpenTelemetry), instrumented by hand at the service's own seams (docs/decisions.md):
 * the HTTP hooks (src/http/tracing.ts), the MCP tool call, the database drivers, the job queue
 * and the outgoing HTTP calls each ask `activeTracer()` and do nothing more when it answers
 * undefined, which it does unless `startTracing` ran: then no provider is registered with the
 * API, and a request pays one check per seam.
 */
let active: { provider: NodeTracerProvider; tracer: Tracer; users: number; reporting: boolean } | undefined;

/** How long closing waits for the last spans to be sent. */
const SHUTDOWN_FLUSH_MS = 3_000;

/** The tracer while tracing runs; undefined otherwise (every seam then runs its work bare). */
export const activeTracer = (): Tracer | undefined => active?.tracer;

function samplerOf(name: SamplerName, ratio: number): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

export interface Tracing {
  /**
   * Where the SDK's own complaints go (an export that failed: the collector away or refusing),
   * as warnings; the first app's log, the SDK's logger being one per process.
   */
  reportTo(log: { warn(details: object, message: string): void }): void;
  /** Flushes, and once its last user is done, unregisters the provider. */
  shutdown(): Promise<void>;
}

/** Sends the spans still buffered now (tests; shutdown does it too). */
export const flushTraces = async (): Promise<void> => active?.provider.forceFlush();

/**
 * Registers a tracer provider exporting to `settings.tracesUrl` (OTLP/HTTP, JSON), the W3C
 * trace context propagator and the async-local context, for the whole process: apps built in
 * one process (tests, a benchmark) share it, and the last one closed takes it down.
 */
export function startTracing(settings: TracingConfig): Tracing {
  if (!active) {
    const provider = new NodeTracerProvider({
      resource: defaultResource()
        .merge(detectResources({ detectors: [envDetector] }))
        .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName })),
      sampler: samplerOf(settings.sampler, settings.samplerRatio),
      spanProcessors: [
        new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers })),
      ],
    });
    provider.register();
    active = { provider, tracer: provider.getTracer('reservation-service'), users: 0, reporting: false };
  }
  const mine = active;
  mine.users += 1;
  let done = false;
  return {
    reportTo(log) {
      if (mine.reporting) return;
      mine.reporting = true;
      const warn = (message: string) => log.warn({ component: 'opentelemetry' }, `tracing: ${message}`);
      diag.setLogger({ error: warn, warn, info() {}, debug() {}, verbose() {} }, DiagLogLevel.WARN);
    },
    async shutdown() {
      if (done) return;
      done = true;
      mine.users -= 1;
      if (mine.users > 0) return;
      if (active === mine) active = undefined;
      // The last spans are sent if the collector answers soon; a collector away must neither
      // fail the shutdown nor hold it past the process's own bound (server.ts gives it 10 s).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        mine.provider.shutdown().catch((error: unknown) => diag.warn(`the last export failed: ${error}`)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS);
        }),
      ]);
      clearTimeout(timer);
      trace.disable();
      context.disable();
      propagation.disable();
      if (mine.reporting) diag.disable();
    },
  };
}

/** A span ended as failed by `error`: its type, and the exception (message and stack). */
export function failSpan(span: Span, error: unknown): void {
  span.setAttribute(ATTR_ERROR_TYPE, (error as { code?: unknown })?.code?.toString() ?? errorName(error));
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

const errorName = (error: unknown) => (error instanceof Error ? error.name : 'error');

/**
 * Runs `work` in a span of its own (the active one while it runs, so what it does nests under
 * it), ended when the work settles; a throw marks it failed. `parent`: where it hangs (default
 * the active context). Without tracing, `work` runs alone and is given no span.
 */
export function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
  parent?: Context,
): Promise<T> {
  const tracer = active?.tracer;
  if (!tracer) return work(undefined);
  return tracer.startActiveSpan(name, options, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Runs `work` in the current context later, wherever it is called from (a queue's turn). */
export function inCurrentContext<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R {
  return active ? context.bind(context.active(), work) : work;
}

/** What an outgoing request answered, for its span: its status (null: no answer). */
export type StatusOf<T> = (answer: T) => number | null;

/**
 * One outgoing HTTP request (a webhook delivery, a provider call) in a client span, `send`
 * given the headers that carry the trace (`traceparent`) to add, or undefined without tracing.
 * The span names the method, the host and the status, never the path or the query: webhook and
 * provider URLs may carry credentials in either.
 */
export function inClientSpan<T>(
  request: { method: string; url: URL; attributes?: Attributes },
  send: (traceHeaders: Record<string, string> | undefined) => Promise<T>,
  statusOf: StatusOf<T>,
): Promise<T> {
  const tracer = active?.tracer;
  if (!tracer) return send(undefined);
  const { method, url } = request;
  const span = tracer.startSpan(method, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_SERVER_ADDRESS]: url.hostname,
      [ATTR_SERVER_PORT]: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
      [ATTR_URL_SCHEME]: url.protocol.slice(0, -1),
      ...request.attributes,
    },
  });
  const traceHeaders: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), traceHeaders);
  return send(traceHeaders).then(
    (answer) => {
      const status = statusOf(answer);
      if (status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status === null || status >= 400) {
        span.setAttribute(ATTR_ERROR_TYPE, status === null ? 'no_answer' : String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      return answer;
    },
    (error: unknown) => {
      failSpan(span, error);
      span.end();
      throw error;
    },
  );
}
