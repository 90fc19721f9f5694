// An OTLP/HTTP trace sink for bench/tracing.ts, as a collector would be: accepts POST /v1/traces
// (JSON), counts the spans and the server spans among them (one a request), answers 200;
// GET /count answers {exports, spans, requests}. PORT from the
// environment. Plain JavaScript, no dependency: it only stands in for the collector.
import { createServer } from 'node:http';

let exports = 0;
let spans = 0;
let requests = 0;
const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/count') {
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ exports, spans, requests }));
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    exports += 1;
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    for (const resource of body.resourceSpans ?? [])
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? []) {
          spans += 1;
          if (span.kind === 2) requests += 1;
        }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
