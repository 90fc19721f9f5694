import { z } from 'zod';
import { absoluteUrl } from './fields.js';

/** The samplers of the OpenTelemetry SDK's `OTEL_TRACES_SAMPLER`. */
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** `key=value,key2=value2`, values percent-encoded (the OTLP exporter's form); answers the pairs. */
const otlpHeaders = z.string().transform((text, ctx) => {
  const headers: Record<string, string> = {};
  for (const entry of text.split(',')) {
    if (!entry.trim()) continue;
    const split = entry.indexOf('=');
    const name = split > 0 ? entry.slice(0, split).trim() : '';
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      // The entry itself is never echoed: it may be a credential.
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of name=value' });
      return z.NEVER;
    }
    try {
      headers[name.toLowerCase()] = decodeURIComponent(entry.slice(split + 1).trim());
    } catch {
      ctx.addIssue({ code: 'custom', message: `the value of ${name} is not percent-encoded` });
      return z.NEVER;
    }
  }
  return headers;
});

/**
 * Traces over OTLP/HTTP: the standard OTEL_* variables the service reads itself. Tracing is on
 * when an endpoint is set; the SDK reads its other variables (batching, limits, resource
 * attributes, the exporter's timeout) from the environment as it always does.
 */
export const telemetryEnv = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: absoluteUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: absoluteUrl.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders.optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpHeaders.optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(200).default('reservation-service'),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).default('false'),
});

export interface TracingConfig {
  /** Where spans are POSTed: the traces endpoint as given, or `<endpoint>/v1/traces`. */
  tracesUrl: string;
  /** Sent with every export (an API key, say): never logged. */
  headers: Record<string, string>;
  serviceName: string;
  sampler: SamplerName;
  /** The ratio of the `traceidratio` samplers. */
  samplerRatio: number;
}

export interface TelemetryConfig {
  /** undefined: no tracing at all (no tracer provider is registered). */
  tracing: TracingConfig | undefined;
}

export function telemetryConfig(e: z.output<typeof telemetryEnv>): TelemetryConfig {
  const tracesUrl =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ??
    (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces` : undefined);
  if (!tracesUrl || e.OTEL_SDK_DISABLED === 'true') return { tracing: undefined };
  return {
    tracing: {
      tracesUrl,
      headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
      serviceName: e.OTEL_SERVICE_NAME,
      sampler: e.OTEL_TRACES_SAMPLER,
      samplerRatio: e.OTEL_TRACES_SAMPLER_ARG,
    },
  };
}
