import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { failSpan } from '../lib/tracing.js';
import { redactTokenPaths } from './logging.js';

/**
 * A server span per request, for an app built while tracing runs (none otherwise: no hook is
 * added, so a request pays nothing). The span continues the caller's W3C `traceparent`, is
 * named by the route template (`POST /api/reservations`, never the raw URL, whose ids would make
 * every name unique), and is the active context of everything the request does: its hooks,
 * handler, queries and tool calls nest under it. Its path is written with token segments
 * redacted, as the access log writes it; no query string, header or body is recorded.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  const spans = new WeakMap<FastifyRequest, { span: Span; active: Context; error?: unknown }>();

  const end = (request: FastifyRequest, status: number | undefined) => {
    const traced = spans.get(request);
    if (!traced) return;
    spans.delete(request);
    const { span, error } = traced;
    if (status === undefined) span.setAttribute(ATTR_ERROR_TYPE, 'aborted');
    else {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      // A 4xx is the caller's error (the envelope says which); only a server error fails the span.
      if (status >= 500) {
        if (error !== undefined) failSpan(span, error);
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
    }
    span.end();
  };

  // First of all hooks (the app's plugins add theirs after): everything after runs in the span.
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = request.routeOptions.url;
    const { method, url } = request;
    const query = url.indexOf('?');
    // One attributes object, written in place: the SDK copies it into the span's own.
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_PATH]: redactTokenPaths(query < 0 ? url : url.slice(0, query)),
      [ATTR_URL_SCHEME]: request.protocol,
    };
    if (route) attributes[ATTR_HTTP_ROUTE] = route;
    const span = tracer.startSpan(
      route ? `${method} ${route}` : method,
      { kind: SpanKind.SERVER, attributes },
      parent,
    );
    const active = trace.setSpan(parent, span);
    spans.set(request, { span, active });
    context.with(active, done);
  });
  // The body arrives in events of the request's stream, which carry the async context of the
  // connection, not the span's: what follows the body parser re-enters the span's. (Binding the
  // request's and the reply's emitters instead would patch eight methods onto both, per request.)
  app.addHook('preValidation', (request, _reply, done) => {
    const traced = spans.get(request);
    if (traced) context.with(traced.active, done);
    else done();
  });
  app.addHook('onError', (request, _reply, error, done) => {
    const traced = spans.get(request);
    if (traced) traced.error = error;
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}
