import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { Resource, Tool } from '@modelcontextprotocol/server';

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension): HTML views a host shows for a tool's
 * result in a sandboxed iframe, talking to the host over postMessage. Each is one self-contained
 * document built by `npm run build:web` (frontend/vite.mcp-apps.config.ts) into
 * `<web app build>/mcp-apps/<name>.html`, read once at start and served as a `ui://` resource.
 */

/** The slot picker (frontend/src/mcp-apps/slot-picker): shows availability's slots and books one. */
export const SLOT_PICKER_URI = 'ui://booking/slot-picker';

/** The apps the service serves: their resource and the file the build writes. */
const APPS = [
  {
    uri: SLOT_PICKER_URI,
    file: 'slot-picker.html',
    name: 'Slot picker',
    description: 'Shows the free slots of an availability answer in your zone and books the one you pick',
  },
] as const;

/**
 * A tool's `_meta` linking it to its app: `ui.resourceUri`, and the flat key of the extension's
 * first drafts, which older hosts still read (as the SDK's own `registerAppTool` writes both).
 */
export const appToolMeta = (uri: string): NonNullable<Tool['_meta']> => ({
  ui: { resourceUri: uri },
  [RESOURCE_URI_META_KEY]: uri,
});

/** One app as `resources/list` names it and the HTML `resources/read` answers (null: not built). */
export interface McpApp {
  resource: Resource;
  html: string | null;
}

/** The apps, their HTML read from `root` (the web app's build) now; a missing build is said once in the log. */
export function loadMcpApps(root: string, warn: (message: string) => void): McpApp[] {
  return APPS.map(({ uri, file, name, description }) => {
    const path = join(root, 'mcp-apps', file);
    const html = existsSync(path) ? readFileSync(path, 'utf8') : null;
    if (html === null) warn(`MCP App ${uri} is not built (${path}): run npm run build:web`);
    return { resource: { uri, name, description, mimeType: RESOURCE_MIME_TYPE }, html };
  });
}

/** What `resources/read` answers for an app. */
export const appContents = (app: McpApp & { html: string }) => [
  { uri: app.resource.uri, mimeType: RESOURCE_MIME_TYPE, text: app.html },
];
