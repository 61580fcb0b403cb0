// One esbuild script. Entry points are bundled for Node (CLI, benchmarks);
// the VS Code extension host and webview bundles join this list as they land.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  logLevel: 'warning',
};
/** A webview bundle: browser ESM, loaded under a strict CSP. */
const webview = (name, entry) => ({
  bundle: true,
  platform: 'browser',
  target: 'es2022',
  format: 'esm',
  sourcemap: true,
  minify: true,
  logLevel: 'warning',
  entryPoints: { [name]: entry },
  outdir: 'dist/webview',
});

const configs = [
  // dist/cli.js launches the CLI bundle, or the small status-line bundle (src/cli/launch.ts).
  {
    ...common,
    entryPoints: { cli: 'src/cli/launch.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
    external: ['./cli-main.js', './statusline.js'],
  },
  { ...common, entryPoints: { 'cli-main': 'src/cli/main.ts' }, outdir: 'dist' },
  { ...common, entryPoints: { statusline: 'src/cli/statusline-main.ts' }, outdir: 'dist' },
  // `trimline report`'s worker threads (src/core/report/parallel.ts), beside the CLI and the bench.
  { ...common, entryPoints: { 'report-worker': 'src/cli/report-worker.ts' }, outdir: 'dist' },
  // `trimline proxy`'s worker thread for big requests (src/core/proxy/offload.ts).
  { ...common, entryPoints: { 'proxy-worker': 'src/host/proxy/worker.ts' }, outdir: 'dist' },
  // playwright-core (the page bench drives Chromium) is loaded from node_modules, not bundled.
  { ...common, entryPoints: { bench: 'test/bench/main.ts' }, outdir: 'dist', external: ['playwright-core'] },
  { ...common, entryPoints: { 'dev-server': 'src/dev/main.ts' }, outdir: 'dist' },
  // VS Code extension host: a light entry (activation, views, commands) and the core it
  // requires on first use (agent, engine, tokenizer, SDK). `vscode` is provided by the host.
  {
    ...common,
    entryPoints: { extension: 'src/host/vscode/extension.ts' },
    outdir: 'dist',
    external: ['vscode', './extension-core.js', './report-core.js'],
    minify: true,
  },
  {
    ...common,
    entryPoints: { 'extension-core': 'src/host/vscode/core.ts' },
    outdir: 'dist',
    external: ['vscode'],
    minify: true,
  },
  {
    ...common,
    entryPoints: { 'report-core': 'src/host/vscode/report-core.ts' },
    outdir: 'dist',
    external: ['vscode'],
    minify: true,
  },
  // Chat webview: browser ESM, loaded by the chat view under a strict CSP.
  webview('chat', 'webview/chat/main.ts'),
  // Context inspector webview: browser ESM (toolkit controls bundled in), the same bundle for
  // the VS Code panel and the standalone server; its CSS (media/inspector.css + base.css) bundled beside it.
  webview('inspector', 'webview/inspector/main.ts'),
  {
    bundle: true,
    minify: true,
    logLevel: 'warning',
    entryPoints: { inspector: 'media/inspector.css' },
    outdir: 'dist/webview',
  },
  // Report view webview ("What would trimming have saved?").
  webview('report', 'webview/report/main.ts'),
];

for (const cfg of configs) {
  if (watch) await (await esbuild.context(cfg)).watch();
  else await esbuild.build(cfg);
}
