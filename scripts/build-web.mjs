/**
 * Bundles the web page (web/src → dist/web/assets/app.js, web/styles → app.css, web/public beside
 * them) with esbuild:
 * React, the AI SDK client and the page in one file, no CDN at run time. Run by `npm run build`.
 */
import { build } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';

const out = 'dist/web';
// A fresh folder: nothing of an earlier build (a source map, say) is left to be served.
rmSync(out, { recursive: true, force: true });
mkdirSync(`${out}/assets`, { recursive: true });
cpSync('web/public/index.html', `${out}/index.html`);
// One stylesheet (the CSP allows no inline style), from web/styles in the order of their names.
const sheets = readdirSync('web/styles')
  .filter((name) => name.endsWith('.css'))
  .sort();
writeFileSync(
  `${out}/assets/app.css`,
  sheets.map((name) => readFileSync(`web/styles/${name}`, 'utf8')).join('\n'),
);
await build({
  entryPoints: ['web/src/main.tsx'],
  outfile: `${out}/assets/app.js`,
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  // No source map: it would be served beside the bundle to anyone (the page's source is in web/src).
  sourcemap: false,
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
