/**
 * The import graph of src/ and webview/, read with TypeScript's own pre-processor (static,
 * `export … from`, dynamic `import()` and `require` all count, type-only imports too), and
 * the layer each file belongs to (DESIGN.md, Layout).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const REPO = resolve(__dirname, '../../..');

export type Layer = 'protocol' | 'core' | 'dev' | 'host' | 'cli' | 'webview';

/** What each layer may import, lowest first: a layer imports only itself and the layers below it; webviews only the protocol. */
export const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  protocol: ['protocol'],
  core: ['protocol', 'core'],
  dev: ['protocol', 'core', 'dev'],
  host: ['protocol', 'core', 'dev', 'host'],
  cli: ['protocol', 'core', 'dev', 'host', 'cli'],
  webview: ['protocol', 'webview'],
};

export function layerOf(file: string): Layer | undefined {
  const rel = relative(REPO, file).split('\\').join('/');
  if (rel.startsWith('webview/')) return 'webview';
  const m = /^src\/(protocol|core|dev|host|cli)\//.exec(rel);
  return m ? (m[1] as Layer) : undefined;
}

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
  for (const p of [base, `${base}.ts`, join(base, 'index.ts')]) if (existsSync(p) && statSync(p).isFile() && p.endsWith('.ts')) return p;
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

/** Imports that go from a layer to one it may not import ("from → to"). */
export function layerViolations(g: ImportGraph): string[] {
  const out: string[] = [];
  for (const [file, { imports, packages }] of g.files) {
    const from = layerOf(file);
    if (!from) continue;
    for (const target of imports) {
      const to = layerOf(target);
      if (!to || !ALLOWED[from].includes(to)) out.push(`${relative(REPO, file)} (${from}) → ${relative(REPO, target)} (${to ?? 'outside src/ and webview/'})`);
    }
    if (packages.includes('vscode') && !relative(REPO, file).startsWith('src/host/vscode/')) out.push(`${relative(REPO, file)} (${from}) → vscode`);
  }
  return out;
}
