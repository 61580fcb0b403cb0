/** Small text comparisons for edits (pure: no `vscode`, testable anywhere). */

/** Lines added and removed between two texts (a multiset line diff: exact for counts shown on a card). */
export function lineStats(before: string, after: string): { added: number; removed: number } {
  const split = (s: string): string[] => (s === '' ? [] : s.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n'));
  const counts = new Map<string, number>();
  for (const l of split(before)) counts.set(l, (counts.get(l) ?? 0) + 1);
  let added = 0;
  for (const l of split(after)) {
    const c = counts.get(l) ?? 0;
    if (c > 0) counts.set(l, c - 1);
    else added++;
  }
  let removed = 0;
  for (const c of counts.values()) removed += c;
  return { added, removed };
}

/**
 * The smallest span that differs between two texts (common prefix and suffix excluded), so undo and cursors stay local.
 */
export function changedSpan(a: string, b: string): { start: number; endOld: number; endNew: number } {
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let ea = a.length;
  let eb = b.length;
  while (ea > start && eb > start && a.charCodeAt(ea - 1) === b.charCodeAt(eb - 1)) {
    ea--;
    eb--;
  }
  // Never split a surrogate pair or a CRLF.
  while (start > 0 && (isLowSurrogate(a.charCodeAt(start)) || (a[start - 1] === '\r' && a[start] === '\n'))) start--;
  while (ea < a.length && (isLowSurrogate(a.charCodeAt(ea)) || (a[ea - 1] === '\r' && a[ea] === '\n'))) {
    ea++;
    eb++;
  }
  return { start, endOld: ea, endNew: eb };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
