import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, '..', 'dist', 'frontend');

/**
 * Writes `.br` and `.gz` beside each script and style sheet, so the service
 * (`@fastify/static` with `preCompressed`) sends them without compressing per request.
 */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const name of readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const body = readFileSync(join(assets, name));
        writeFileSync(join(assets, `${name}.br`), brotliCompressSync(body));
        writeFileSync(join(assets, `${name}.gz`), gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: '/',
  plugins: [react(), precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // Module preload is native in every browser the pages support; the polyfill is dead weight.
    modulePreload: { polyfill: false },
    // Every asset a file of its own: `data:` inlining would hide it from the budget and the cache.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: {
      output: {
        // A language's catalogue (src/i18n/locales/<language>/pages.json) is named by its language:
        // `pages-de-<hash>.js`, so a page's loads (and the tests) tell them apart.
        chunkFileNames: (chunk) => {
          const language = /\/i18n\/locales\/(\w+)\/pages\.json$/.exec(chunk.facadeModuleId ?? '')?.[1];
          return language ? `assets/pages-${language}-[hash].js` : 'assets/[name]-[hash].js';
        },
      },
    },
  },
  server: {
    // `npm run dev:web`: the API of a service on :3000 behind the dev server.
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
