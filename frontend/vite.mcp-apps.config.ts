import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// The MCP Apps (src/mcp/apps.ts), built after the pages (`npm run build:web`): each one HTML
// document with its script and styles inside. A host loads an app's HTML from resources/read
// into a sandboxed iframe of no origin of ours, so the document can fetch nothing of its own.

const here = dirname(fileURLToPath(import.meta.url));
const app = 'slot-picker';

/** `</script` inside inlined code would end the element early. */
const scriptSafe = (code: string) => code.replaceAll('</script', '<\\/script');

/** Moves every emitted script and style sheet into the HTML, and names the HTML after the app. */
function inlineIntoHtml(name: string): Plugin {
  return {
    name: 'inline-into-html',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const page = Object.values(bundle).find((file) => file.fileName.endsWith('.html'));
      if (page?.type !== 'asset') throw new Error(`${name}: no HTML was built`);
      let html = String(page.source);
      for (const file of Object.values(bundle)) {
        const tag = new RegExp(
          `<(script|link)[^>]*(?:src|href)="[^"]*/${file.fileName}"[^>]*>(?:</script>)?`,
        );
        if (file.type === 'chunk')
          html = html.replace(tag, () => `<script type="module">${scriptSafe(file.code)}</script>`);
        else if (file.fileName.endsWith('.css'))
          html = html.replace(tag, () => `<style>${String(file.source)}</style>`);
        else continue;
        delete bundle[file.fileName];
      }
      delete bundle[page.fileName];
      this.emitFile({ type: 'asset', fileName: `${name}.html`, source: html });
    },
  };
}

export default defineConfig({
  root: join(here, 'src', 'mcp-apps', app),
  base: './',
  plugins: [react(), inlineIntoHtml(app)],
  build: {
    outDir: join(here, '..', 'dist', 'frontend', 'mcp-apps'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    assetsInlineLimit: Number.POSITIVE_INFINITY,
    cssCodeSplit: false,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
