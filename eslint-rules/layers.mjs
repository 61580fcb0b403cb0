// The house's floor plan, in one place: eslint.config.mjs enforces it with the rule below, and
// test/unit/architecture/ walks the whole import graph with the same table (docs/ARCHITECTURE.md).
//
// Layers, lowest first. A file imports only its own layer and the layers below it. Inside src/core the
// same holds for its floors. Every source file belongs to a layer (and, in core, to a floor): a file
// that does not is an error, so a new folder has to be placed on the plan before it can be written.
import { dirname, relative, resolve, sep } from 'node:path';

export const REPO = resolve(dirname(new URL(import.meta.url).pathname), '..');

/**
 * Top layers, lowest first; webviews are a side branch that sees only the protocol and the views.
 * protocol  the typed host ⇄ webview messages and the data they carry: imports nothing outside itself
 * views     pure renderers of protocol data (the report as text and as HTML): shared by the CLI and the webviews
 * core      the engine, pure: runs in Node, the CLI and tests, never `vscode`
 * dev       the local Anthropic-compatible server
 * host      VS Code, standalone and proxy hosts; `vscode` only in src/host/vscode
 * cli       the `trimline` command
 */
export const LAYERS = ['protocol', 'views', 'core', 'dev', 'host', 'cli'];

/**
 * Floors of src/core, lowest first (one sentence each in docs/ARCHITECTURE.md):
 * api     the wire format's types and the API's rules (cache TTLs and multipliers, breakpoint limit,
 *         lookback, block identity, the thinking rule): what every other floor prices or checks against
 * models  the one model catalog: ids, prices, windows, cache minimums, thinking behaviour
 * session log records, overlays and the view computed from them
 * tokens  estimates, calibration from usage, per-block memo
 * cache   the cost model: pricer, simulator, break-even quotes, breakpoint planner, verdicts
 * request view → request body; validator of the API's rules
 * trimming strategies, pipeline, decision log
 * engine  the context engine (pipeline + planner + builder per call), replay, cost ledger
 * store   append-only journals, locks, resume
 * import  transcript formats → session log + recorded calls
 * report  what each strategy would have cost on recorded sessions
 * agent   the agent loop and its tools
 * inspect the inspector's rows, findings, diffs
 * status  the facts of Claude Code's status line (context, cache read share, last miss, cost) from calls or a
 * transcript tail
 * proxy   proxied sessions: matching, upstream shaping, verdicts
 * mcp     MCP servers as a tool source for the agent
 * route   which agents can be routed through the proxy, and the edits of their settings
 */
export const CORE_FLOORS = [
  'api',
  'models',
  'session',
  'tokens',
  'cache',
  'request',
  'trimming',
  'engine',
  'store',
  'import',
  'report',
  'agent',
  'inspect',
  'status',
  'proxy',
  'mcp',
  'route',
];

const toPosix = (p) => p.split(sep).join('/');

/** `{ layer, floor }` of a repository file (absolute path), or undefined when it is outside src/ and webview/. */
export function placeOf(file) {
  const rel = toPosix(relative(REPO, file));
  if (rel.startsWith('webview/')) return { layer: 'webview' };
  const m = /^src\/([^/]+)\/(.*)$/.exec(rel);
  if (!m) return undefined;
  const layer = LAYERS.includes(m[1]) ? m[1] : 'unplaced';
  if (layer !== 'core') return { layer, vscodeAllowed: rel.startsWith('src/host/vscode/') };
  const floor = /^([^/]+)\//.exec(m[2])?.[1];
  return { layer, floor: floor && CORE_FLOORS.includes(floor) ? floor : 'unplaced' };
}

/** Why `from` may not import `to` (both places), or undefined when it may. */
export function forbidden(from, to) {
  if (from.layer === 'webview') {
    return ['protocol', 'views', 'webview'].includes(to.layer)
      ? undefined
      : 'webviews import only src/protocol, src/views and their own modules';
  }
  if (to.layer === 'webview') return 'only webviews import webview code';
  const a = LAYERS.indexOf(from.layer);
  const b = LAYERS.indexOf(to.layer);
  if (b > a) return `src/${from.layer} may not import src/${to.layer} (a higher layer)`;
  if (a === b && from.layer === 'core' && CORE_FLOORS.indexOf(to.floor) > CORE_FLOORS.indexOf(from.floor)) {
    return `core/${from.floor} may not import core/${to.floor} (a higher floor; order in eslint-rules/layers.mjs)`;
  }
  return undefined;
}

/** The ESLint rule: static imports, `export … from`, dynamic `import()` and `require()` alike. */
export const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down the floor plan (docs/ARCHITECTURE.md)' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const here = placeOf(file);
    if (!here) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      if (spec === 'vscode' || spec.startsWith('vscode/')) {
        if (!here.vscodeAllowed)
          context.report({ node, message: 'Only src/host/vscode may import vscode (docs/ARCHITECTURE.md).' });
        return;
      }
      if (
        (here.layer === 'protocol' || here.layer === 'views') &&
        (spec.startsWith('node:') || spec.startsWith('..'))
      ) {
        const to = spec.startsWith('..') ? placeOf(resolve(dirname(file), spec)) : undefined;
        if (!to || !LAYERS.slice(0, LAYERS.indexOf(here.layer) + 1).includes(to.layer)) {
          context.report({
            node,
            message: `src/${here.layer} imports nothing but the layers below it, and no Node module (it runs in the webviews too).`,
          });
          return;
        }
      }
      if (here.layer === 'webview' && spec.startsWith('node:')) {
        context.report({ node, message: 'Webviews run in a browser.' });
        return;
      }
      if (!spec.startsWith('.')) return;
      const to = placeOf(resolve(dirname(file), spec));
      if (!to) return;
      const why = forbidden(here, to);
      if (why) context.report({ node, message: `${why}.` });
    };
    const literal = (n) =>
      n && n.type === 'Literal'
        ? n.value
        : n && n.type === 'TemplateLiteral' && n.expressions.length === 0
          ? n.quasis[0].value.cooked
          : undefined;
    return {
      Program(node) {
        if (here.layer === 'unplaced' || here.floor === 'unplaced') {
          context.report({
            node,
            message:
              'This file belongs to no layer: place its folder in eslint-rules/layers.mjs (docs/ARCHITECTURE.md).',
          });
        }
      },
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => {
        const spec = literal(n.source);
        if (spec === undefined && here.layer === 'core')
          context.report({
            node: n,
            message: 'A dynamic import in src/core names its module literally, so the floor plan can check it.',
          });
        else check(n, spec);
      },
      TSImportType: (n) => check(n, literal(n.argument?.literal ?? n.argument)),
      CallExpression: (n) => {
        if (n.callee.type === 'Identifier' && n.callee.name === 'require' && n.arguments.length > 0)
          check(n, literal(n.arguments[0]));
      },
    };
  },
};

export default { rules: { layers: layersRule } };
