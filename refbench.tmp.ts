import { readdirSync, readFileSync } from 'node:fs';
import { parseTranscript } from './src/core/import';
import { toolResultText } from './src/core/session/log';
import { extractRefs } from './src/core/trimming/refs';
const texts: string[] = [];
for (const c of ['c000', 'c001']) {
  const dir = '/tmp/rsub/' + c;
  for (const d of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!d.isFile()) continue;
    try {
      const imp = parseTranscript(readFileSync((d.parentPath ?? d.path) + '/' + d.name, 'utf8'), d.name);
      for (const m of imp.messages) for (const b of m.blocks) if (b.param.type === 'tool_result') texts.push(toolResultText(b.param));
    } catch {}
  }
}
// first pass, cold (as in the report)
let t0 = performance.now();
const out = texts.map((t) => extractRefs(t));
console.log('cold ms', (performance.now() - t0).toFixed(0), 'chars', texts.reduce((a, t) => a + t.length, 0));
require('fs').writeFileSync(process.argv[2] ?? '/tmp/refs-x.json', JSON.stringify(out));
