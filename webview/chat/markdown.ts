/**
 * A tiny, safe Markdown renderer for model text. It parses into a small tree
 * (pure, testable without a DOM) and builds DOM nodes from it with
 * `createElement` and `textContent` only: model or tool text never reaches
 * `innerHTML`, so markup in it is shown, never executed. Links are kept only for
 * http(s) URLs and open with `rel="noopener noreferrer"`; anything else stays text.
 *
 * Supported: paragraphs (single newlines kept as line breaks), fenced code blocks
 * (an unterminated fence while streaming is still a code block), headings, bullet
 * and numbered lists (one level), block quotes, rules, `inline code`, **bold**,
 * *italic*, [links](https://…). Everything else is literal text. Bidi controls are
 * shown as `\u{202e}`, never obeyed (src/protocol/safe-text.ts).
 */
import { bidiVisible } from '../../src/protocol/safe-text';

export type Inline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'strong'; children: Inline[] }
  | { t: 'em'; children: Inline[] }
  | { t: 'link'; href: string; children: Inline[] }
  | { t: 'br' };

export type Block =
  | { t: 'p'; children: Inline[] }
  | { t: 'h'; level: number; children: Inline[] }
  | { t: 'code'; lang: string; text: string }
  | { t: 'list'; ordered: boolean; start: number; items: Inline[][] }
  | { t: 'quote'; children: Inline[] }
  | { t: 'hr' };

const FENCE = /^\s{0,3}(```+|~~~+)\s*([\w+#.-]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const ORDERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
/** Only these URL schemes become links. */
const SAFE_URL = /^https?:\/\/[^\s<>"']+$/i;

/** Parse Markdown into blocks. */
export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1];
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(marker)) body.push(lines[i++]);
      i++; // closing fence (or past the end while streaming)
      out.push({ t: 'code', lang: fence[2], text: body.join('\n') });
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ t: 'hr' });
      i++;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) {
      out.push({ t: 'h', level: h[1].length, children: parseInline(h[2]) });
      i++;
      continue;
    }
    if (BULLET.test(line) || ORDERED.test(line)) {
      const ordered = !BULLET.test(line);
      const re = ordered ? ORDERED : BULLET;
      const start = ordered ? Number(ORDERED.exec(line)![1]) : 1;
      const items: string[] = [];
      while (i < lines.length && lines[i].trim()) {
        const m = re.exec(lines[i]);
        if (m) items.push(ordered ? m[2] : m[1]);
        else if (items.length && /^\s+\S/.test(lines[i])) items[items.length - 1] += `\n${lines[i].trim()}`;
        else break;
        i++;
      }
      out.push({ t: 'list', ordered, start, items: items.map(parseInline) });
      continue;
    }
    if (QUOTE.test(line)) {
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(QUOTE.exec(lines[i++])![1]);
      out.push({ t: 'quote', children: parseInline(body.join('\n')) });
      continue;
    }
    const para: string[] = [];
    while (
      i < lines.length &&
      lines[i].trim() &&
      !FENCE.test(lines[i]) &&
      !HEADING.test(lines[i]) &&
      !RULE.test(lines[i]) &&
      !QUOTE.test(lines[i])
    ) {
      if (para.length && (BULLET.test(lines[i]) || ORDERED.test(lines[i]))) break;
      para.push(lines[i++]);
    }
    out.push({ t: 'p', children: parseInline(para.join('\n')) });
  }
  return out;
}

/** Parse inline spans. Unmatched markers are literal text. */
export function parseInline(src: string): Inline[] {
  const out: Inline[] = [];
  let text = '';
  const flush = (): void => {
    if (text) out.push({ t: 'text', text });
    text = '';
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') {
      flush();
      out.push({ t: 'br' });
      i++;
      continue;
    }
    if (c === '\\' && i + 1 < src.length && /[\\`*_[\]()#>!-]/.test(src[i + 1])) {
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(src.slice(i))![0];
      const end = src.indexOf(run, i + run.length);
      if (end > i) {
        flush();
        out.push({ t: 'code', text: src.slice(i + run.length, end).replace(/^ (.*) $/, '$1') });
        i = end + run.length;
        continue;
      }
      text += run;
      i += run.length;
      continue;
    }
    if ((c === '*' || c === '_') && src[i + 1] === c) {
      // `__` never opens or closes inside a word (snake__case, window.__proto__ stay text).
      const canOpen = c === '*' || !/\w/.test(src[i - 1] ?? '');
      let end = canOpen ? src.indexOf(c + c, i + 2) : -1;
      while (c === '_' && end > -1 && /\w/.test(src[end + 2] ?? '')) end = src.indexOf(c + c, end + 1);
      if (end > i + 2 && src[i + 2] !== ' ') {
        flush();
        out.push({ t: 'strong', children: parseInline(src.slice(i + 2, end)) });
        i = end + 2;
        continue;
      }
      text += c + c;
      i += 2;
      continue;
    } else if (c === '*' || (c === '_' && !/\w/.test(src[i - 1] ?? ''))) {
      const end = findEmphasisEnd(src, i + 1, c);
      if (end > i + 1 && src[i + 1] !== ' ') {
        flush();
        out.push({ t: 'em', children: parseInline(src.slice(i + 1, end)) });
        i = end + 1;
        continue;
      }
    }
    if (c === '[') {
      const link = /^\[([^\]\n]+)\]\(([^)\s]+)(?:\s+"[^"\n]*")?\)/.exec(src.slice(i));
      if (link) {
        flush();
        const children = parseInline(link[1]);
        if (SAFE_URL.test(link[2])) out.push({ t: 'link', href: link[2], children });
        else out.push(...children, { t: 'text', text: ` (${link[2]})` });
        i += link[0].length;
        continue;
      }
    }
    text += c;
    i++;
  }
  flush();
  return out;
}

function findEmphasisEnd(src: string, from: number, marker: string): number {
  for (let j = from; j < src.length; j++) {
    if (src[j] === '\n') return -1;
    if (src[j] === '`') {
      const close = src.indexOf('`', j + 1);
      if (close < 0) return -1;
      j = close;
      continue;
    }
    if (
      src[j] === marker &&
      src[j - 1] !== ' ' &&
      src[j + 1] !== marker &&
      (marker === '*' || !/\w/.test(src[j + 1] ?? ''))
    )
      return j;
  }
  return -1;
}

function inlineNodes(doc: Document, parent: HTMLElement, nodes: readonly Inline[]): void {
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        parent.append(doc.createTextNode(bidiVisible(n.text)));
        break;
      case 'br':
        parent.append(doc.createElement('br'));
        break;
      case 'code': {
        const el = doc.createElement('code');
        el.textContent = bidiVisible(n.text);
        parent.append(el);
        break;
      }
      case 'strong':
      case 'em': {
        const el = doc.createElement(n.t);
        inlineNodes(doc, el, n.children);
        parent.append(el);
        break;
      }
      case 'link': {
        const a = doc.createElement('a');
        a.href = n.href;
        a.rel = 'noopener noreferrer';
        a.title = n.href;
        inlineNodes(doc, a, n.children);
        parent.append(a);
        break;
      }
    }
  }
}

/** Build DOM nodes for Markdown text. */
export function renderMarkdown(doc: Document, src: string): DocumentFragment {
  const frag = doc.createDocumentFragment();
  for (const b of parseMarkdown(src)) {
    switch (b.t) {
      case 'p': {
        const p = doc.createElement('p');
        inlineNodes(doc, p, b.children);
        frag.append(p);
        break;
      }
      case 'h': {
        // Headings inside a chat message are visual only: h1/h2 would compete with the view's landmarks.
        const el = doc.createElement(b.level <= 2 ? 'h3' : 'h4');
        inlineNodes(doc, el, b.children);
        frag.append(el);
        break;
      }
      case 'code': {
        const pre = doc.createElement('pre');
        const code = doc.createElement('code');
        if (b.lang) code.dataset.lang = b.lang;
        code.textContent = bidiVisible(b.text);
        pre.append(code);
        pre.tabIndex = 0;
        frag.append(pre);
        break;
      }
      case 'list': {
        const list = doc.createElement(b.ordered ? 'ol' : 'ul');
        if (b.ordered && b.start !== 1) (list as HTMLOListElement).start = b.start;
        for (const item of b.items) {
          const li = doc.createElement('li');
          inlineNodes(doc, li, item);
          list.append(li);
        }
        frag.append(list);
        break;
      }
      case 'quote': {
        const q = doc.createElement('blockquote');
        inlineNodes(doc, q, b.children);
        frag.append(q);
        break;
      }
      case 'hr':
        frag.append(doc.createElement('hr'));
        break;
    }
  }
  return frag;
}
