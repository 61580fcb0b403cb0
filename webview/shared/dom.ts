/**
 * DOM helpers for the webviews. Every piece of content becomes a text node or an
 * attribute value set through the DOM, never markup: there is no innerHTML anywhere.
 * Text passes through `bidiVisible` on the way in: a bidi override or isolate from a
 * transcript or a file is shown as `\u{202e}`, never obeyed (src/protocol/safe-text.ts).
 * Inline styles and event-handler attributes are refused (the CSP forbids them anyway);
 * positions and sizes are set through the CSSOM (`el.style.x = …`), which the CSP allows.
 */

import { bidiVisible } from '../../src/protocol/safe-text';

export type AttrValue = string | number | boolean | undefined;
export type Attrs = Record<string, AttrValue>;
export type Child = Node | string | undefined | null | false;

const SVG_NS = 'http://www.w3.org/2000/svg';

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'style' || /^on/i.test(k))
      throw new Error(`dom: refusing attribute "${k}" (CSP: no inline styles or handlers)`);
    // Tooltips and accessible names are shown text too.
    const shown = k === 'title' || k === 'aria-label' ? bidiVisible(String(v)) : String(v);
    el.setAttribute(k, v === true ? '' : shown);
  }
}

function append(el: Element, children: readonly Child[]): void {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(bidiVisible(c)) : c);
  }
}

/** Create an HTML element with attributes and text or child nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs,
  ...children: Child[]
): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Create an SVG element (charts are built with DOM APIs, never from markup). */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Replace an element's content with text (the only way content is written). */
export function setText(el: Element, text: string): void {
  const shown = bidiVisible(text);
  if (el.textContent !== shown) el.textContent = shown;
}

/** Remove every child. */
export function clear(el: Element): void {
  while (el.lastChild) el.lastChild.remove();
}

/** Replace an element's children. */
export function replaceChildren(el: Element, ...children: Child[]): void {
  clear(el);
  append(el, children);
}

/** Set or remove a boolean attribute. */
export function toggleAttr(el: Element, name: string, on: boolean): void {
  if (on) el.setAttribute(name, '');
  else el.removeAttribute(name);
}

/** A native button (used inside virtualized rows, where toolkit elements would be too heavy). */
export function button(label: string, onClick: (ev: MouseEvent) => void, attrs: Attrs = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}
