/** Synthetic transcripts for the browser tests: an XSS corpus and a 5,000-block session. */
import { parseTranscript } from '../../src/core/import';
import type { ImportedSession } from '../../src/core/session/types';

/** Payloads that would run script or restyle the page if any content reached the DOM as markup. */
export const XSS_PAYLOADS: readonly string[] = [
  '<script>window.__xss = "script"</script>',
  '<img src=x onerror="window.__xss = \'img\'">',
  '<a href="javascript:window.__xss = \'link\'" id="xss-link">click me</a>',
  '<style>body { display: none !important } .grid { background: url(https://evil.example/leak) }</style>',
  '</textarea><script>window.__xss = "textarea"</script><textarea>',
  '<svg onload="window.__xss = \'svg\'"><circle r="5"/></svg>',
  '"><iframe srcdoc="<script>parent.__xss = \'iframe\'</script>"></iframe>',
  "'); window.__xss = 'quote'; ('",
  '<details open ontoggle="window.__xss = \'details\'">x</details>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=\'mxss\'">',
  '${window.__xss = "template"} {{constructor.constructor("window.__xss = \'angular\'")()}}',
  '<div style="position:fixed;inset:0;background:red" id="xss-style-attr">covered</div>',
];

function toolRound(i: number, name: string, input: Record<string, unknown>, result: string): object[] {
  const id = `toolu_${String(i).padStart(8, '0')}`;
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${i}` },
        { type: 'tool_use', id, name, input },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ];
}

/** Every payload as a tool result, in tool inputs, in user text and in a tool name. */
export function xssSession(): ImportedSession {
  const messages: object[] = [
    { role: 'user', content: `Please look at these files ${XSS_PAYLOADS[0]} ${XSS_PAYLOADS[1]}` },
  ];
  XSS_PAYLOADS.forEach((p, i) =>
    messages.push(...toolRound(i, 'Read', { file_path: `/tmp/${p}` }, `${p}\n${'filler line\n'.repeat(20)}${p}`)),
  );
  messages.push(...toolRound(99, 'Bash', { command: XSS_PAYLOADS[2] }, XSS_PAYLOADS.join('\n')));
  messages.push({ role: 'assistant', content: `Done. ${XSS_PAYLOADS[3]}` });
  messages.push({ role: 'user', content: 'Thanks <b>bold</b>' });
  const tools = [
    {
      name: 'Read',
      description: `Reads a file ${XSS_PAYLOADS[1]}`,
      input_schema: { type: 'object', properties: { file_path: { type: 'string' } } },
    },
    {
      name: 'Bash',
      description: 'Runs a command',
      input_schema: { type: 'object', properties: { command: { type: 'string' } } },
    },
    { name: 'Unused', description: XSS_PAYLOADS[5], input_schema: { type: 'object', properties: {} } },
  ];
  return parseTranscript(
    JSON.stringify({ model: 'claude-sonnet-4-5', system: `You are helpful. ${XSS_PAYLOADS[0]}`, tools, messages }),
    'xss-<img src=x onerror=alert(1)>.json',
  );
}

/**
 * A session of `blocks` content blocks (one prompt, then tool rounds of two blocks plus
 * a text block), with a recorded call every `callEvery` assistant messages.
 */
export function bigSession(blocks = 5000, callEvery = 50): ImportedSession {
  const messages: object[] = [{ role: 'user', content: 'Refactor the whole code base.' }];
  let n = 1;
  for (let i = 0; n < blocks; i++) {
    messages.push(
      ...toolRound(
        i,
        i % 3 ? 'Read' : 'Bash',
        i % 3 ? { file_path: `src/file${i % 400}.ts` } : { command: `npm test -- ${i}` },
        `line of output ${i}\n`.repeat(8 + (i % 20)),
      ),
    );
    n += 3;
  }
  const imp = parseTranscript(JSON.stringify({ model: 'claude-sonnet-4-5', messages }), 'big-session.json');
  imp.calls = imp.calls.filter((_, i) => i % callEvery === callEvery - 1).map((c, index) => ({ ...c, index }));
  return imp;
}
