/** `trimline strategies`: names and options. */
import { jsonTerminalSafe, terminalSafe } from '../protocol/safe-text';
import { ANCHOR_DOCS, DEFAULT_OPTIONS, DEFAULT_SPEC, STRATEGY_DOCS } from '../core/trimming';

export function runStrategies(json: boolean): string {
  if (json)
    return jsonTerminalSafe(
      JSON.stringify(
        {
          default: { strategies: DEFAULT_SPEC, options: DEFAULT_OPTIONS },
          strategies: STRATEGY_DOCS,
          anchors: ANCHOR_DOCS,
        },
        null,
        2,
      ),
    );
  const out: string[] = ['Strategy specs: none | default | a comma list of the names below (applied in order).', ''];
  out.push(`default = ${DEFAULT_SPEC.join(',')}  ${JSON.stringify(DEFAULT_OPTIONS)}`, '');
  for (const d of STRATEGY_DOCS) {
    out.push(`${d.name}\n  ${d.summary}`);
    for (const o of d.options)
      out.push(`    ${o.name} (${o.type}, default ${JSON.stringify(o.default)}): ${o.description}`);
    out.push(`    trigger ("always" or a fraction of the context window, e.g. 0.6): when it runs`);
  }
  out.push('', "Reference implementations of other products' defaults (for comparison; not cache-aware):");
  for (const d of ANCHOR_DOCS) out.push(`${d.name}\n  ${d.summary}`);
  out.push(
    '',
    'Options go in a JSON file given with --config: {"strategies": {"summarize-tool-results": {"keepTurns": 3}}, ' +
      '"cacheAware": {"enabled": true}}',
  );
  return terminalSafe(out.join('\n'));
}
