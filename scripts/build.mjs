// One esbuild script. Entry points are bundled for Node (CLI, benchmarks);
// the VS Code extension host and webview bundles join this list as they land.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' };
const configs = [
  { ...common, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  { ...common, entryPoints: { bench: 'test/bench/main.ts' }, outdir: 'dist' },
  { ...common, entryPoints: { 'dev-server': 'src/dev/main.ts' }, outdir: 'dist' },
];

for (const cfg of configs) {
  if (watch) await (await esbuild.context(cfg)).watch();
  else await esbuild.build(cfg);
}
