/**
 * The import graph of src/ and webview/, read with TypeScript's own pre-processor (static,
 * `export … from`, dynamic `import()` and `require` all count, type-only imports too), and
 * the place each file has on the floor plan (eslint-rules/layers.mjs, docs/ARCHITECTURE.md).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
// The floor plan is the lint rule's own table: one definition for lint and this walk.
import { forbidden, placeOf } from '../../../eslint-rules/layers.mjs';

export const REPO = resolve(__dirname, '../../..');

export type Layer = 'protocol' | 'views' | 'core' | 'dev' | 'host' | 'cli' | 'webview';

function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The .ts file a relative specifier names (file, or directory index), or undefined (a package or a non-TS asset). */
function resolveSpecifier(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const p of [base, `${base}.ts`, join(base, 'index.ts')])
    if (existsSync(p) && statSync(p).isFile() && p.endsWith('.ts')) return p;
  return undefined;
}

export interface ImportGraph {
  /** Every source file, with the files it imports and the packages it imports by name. */
  readonly files: ReadonlyMap<string, { readonly imports: readonly string[]; readonly packages: readonly string[] }>;
}

export function importGraph(roots: readonly string[] = ['src', 'webview']): ImportGraph {
  const files = new Map<string, { imports: string[]; packages: string[] }>();
  for (const root of roots) {
    for (const file of walk(join(REPO, root), [])) {
      const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const imports: string[] = [];
      const packages: string[] = [];
      for (const { fileName } of info.importedFiles) {
        const target = resolveSpecifier(file, fileName);
        if (target) imports.push(target);
        else if (!fileName.startsWith('.')) packages.push(fileName);
      }
      files.set(file, { imports, packages });
    }
  }
  return { files };
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function cycles(g: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.files.get(v)?.imports ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || g.files.get(v)?.imports.includes(v)) out.push(scc.map((f) => relative(REPO, f)).sort());
    }
  };
  for (const f of g.files.keys()) if (!index.has(f)) visit(f);
  return out;
}

/** Where a file sits on the floor plan (eslint-rules/layers.mjs): its layer, and in core its floor. */
function placeLabel(file: string): string {
  const p = placeOf(file);
  if (!p) return 'outside src/ and webview/';
  return p.floor ? `${p.layer}/${p.floor}` : p.layer;
}

/**
 * Imports that go from a layer (or core floor) to one it may not import ("from → to"), by the lint rule's own table.
 */
export function layerViolations(g: ImportGraph): string[] {
  const out: string[] = [];
  for (const [file, { imports, packages }] of g.files) {
    const from = placeOf(file);
    if (!from) continue;
    const here = `${relative(REPO, file)} (${placeLabel(file)})`;
    if (from.layer === 'unplaced' || from.floor === 'unplaced') out.push(`${here} belongs to no layer`);
    for (const target of imports) {
      const to = placeOf(target);
      if (!to || forbidden(from, to)) out.push(`${here} → ${relative(REPO, target)} (${placeLabel(target)})`);
    }
    if (packages.includes('vscode') && !relative(REPO, file).startsWith('src/host/vscode/'))
      out.push(`${here} → vscode`);
  }
  return out;
}
