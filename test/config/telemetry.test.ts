import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';

describe('trace settings (OTEL_*)', () => {
  test('no endpoint: no tracing', () => {
    assert.equal(loadConfig({}).tracing, undefined);
    assert.equal(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing, undefined);
  });

  test('an endpoint turns tracing on, with the standard defaults', () => {
    assert.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, {
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: {},
      serviceName: 'reservation-service',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
  });

  test('the traces endpoint is used as given; headers are decoded, the traces ones winning', () => {
    const tracing = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/ingest',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=a%20b, X-Tenant=one',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=two',
      OTEL_SERVICE_NAME: 'bookings-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    assert.deepEqual(tracing, {
      tracesUrl: 'https://traces.example/ingest',
      headers: { 'x-api-key': 'a b', 'x-tenant': 'two' },
      serviceName: 'bookings-eu',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
  });

  test('OTEL_SDK_DISABLED=true wins over an endpoint', () => {
    const config = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' });
    assert.equal(config.tracing, undefined);
  });

  test('a bad value names the variable, never echoing a header value', () => {
    assert.throws(
      () => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    assert.throws(() => loadConfig({ OTEL_TRACES_SAMPLER: 'sometimes' }), /OTEL_TRACES_SAMPLER/);
    assert.throws(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: '2' }), /OTEL_TRACES_SAMPLER_ARG/);
    assert.throws(
      () => loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'just-a-secret-token' }),
      (error: Error) =>
        /^Invalid environment variable OTEL_EXPORTER_OTLP_HEADERS/.test(error.message) &&
        !error.message.includes('just-a-secret-token'),
    );
  });
});
