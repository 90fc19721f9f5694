// A minimal MCP Apps host, run in the browser by test/browser/slot-picker.browser.ts (bundled
// by esbuild there): the SDK's MCP client connected to the service with an agent key, and the
// ext-apps AppBridge to the app the tool links, in a sandboxed iframe of no origin, as a chat
// client shows one. What it does is written to `window.hostLog` and the page, for the test.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  getToolUiResourceUri,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';

interface HostConfig {
  mcpUrl: string;
  agentKey: string;
  tool: string;
  arguments: Record<string, unknown>;
  timeZone: string;
  locale: string;
}

declare global {
  interface Window {
    hostLog: string[];
    /** Answers to the host's own messages of unknown methods, by their JSON-RPC id. */
    unknownAnswers: Record<string, unknown>;
    /** Sends the app a notification and a request of methods no MCP Apps peer knows. */
    sendUnknownMessages(): void;
  }
}

const config = JSON.parse(document.getElementById('config')!.textContent!) as HostConfig;
// Another agent's key, when the address names one (`#ag_sk_...`).
const agentKey = location.hash.slice(1) || config.agentKey;
window.hostLog = [];
window.unknownAnswers = {};
const log = (line: string) => {
  window.hostLog.push(line);
  const item = document.createElement('li');
  item.textContent = line;
  document.getElementById('log')!.append(item);
};

const client = new Client({ name: 'slot-picker-test-host', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(config.mcpUrl), {
    requestInit: { headers: { 'x-agent-key': agentKey } },
  }),
);
const tool = (await client.listTools()).tools.find((candidate) => candidate.name === config.tool);
const uri = tool && getToolUiResourceUri(tool);
if (!uri) throw new Error(`${config.tool} links no MCP App`);
const [resource] = (await client.readResource({ uri })).contents as Array<{ mimeType: string; text: string }>;
log(`resources/read ${uri}: ${resource!.mimeType}`);

const frame = document.createElement('iframe');
frame.title = 'Slot picker';
frame.sandbox.add('allow-scripts');
frame.srcdoc = resource!.text;
document.getElementById('app')!.append(frame);
const view = frame.contentWindow!;

const bridge = new AppBridge(
  client,
  { name: 'slot-picker-test-host', version: '1.0.0' },
  { serverTools: {}, openLinks: {}, logging: {} },
  { hostContext: { timeZone: config.timeZone, locale: config.locale, theme: 'light' } },
);
bridge.onsizechange = ({ height }) => {
  if (height) frame.style.height = `${height}px`;
};
bridge.onopenlink = async ({ url }) => {
  log(`open link ${url}`);
  return {};
};
bridge.oninitialized = async () => {
  log('ui/notifications/initialized');
  await bridge.sendToolInput({ arguments: config.arguments });
  const result = await client.callTool({ name: config.tool, arguments: config.arguments });
  log(`tools/call ${config.tool}: ${result.isError ? 'error' : 'ok'}`);
  await bridge.sendToolResult(result);
};
await bridge.connect(new PostMessageTransport(view, view));
// After connect, which wires the app's tools/call straight to the client: the same, logged.
bridge.oncalltool = async (params) => {
  log(`app tools/call ${params.name} ${JSON.stringify(params.arguments)}`);
  const result = await client.callTool(params);
  log(`app tools/call ${params.name}: ${result.isError ? 'error' : 'ok'}`);
  return result;
};

window.addEventListener('message', (event) => {
  const data = event.data as { id?: unknown } | null;
  if (event.source === view && typeof data?.id === 'string' && data.id.startsWith('unknown-'))
    window.unknownAnswers[data.id] = data;
});
window.sendUnknownMessages = () => {
  view.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/no-such-thing', params: {} }, '*');
  view.postMessage({ jsonrpc: '2.0', id: 'unknown-1', method: 'booking/teleport', params: {} }, '*');
};
log('host ready');
