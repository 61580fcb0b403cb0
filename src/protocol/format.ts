/** Number formats shared by findings and messages (the webview has its own copy for the DOM). */

/** 950 → "950", 12_345 → "12.3k", 1_200_000 → "1.2M". */
export function fmtTokens(n: number): string {
  const a = Math.abs(n);
  if (a < 1000) return String(Math.round(n));
  if (a < 1_000_000) return `${(n / 1000).toFixed(a < 10_000 ? 2 : 1).replace(/\.?0+$/, '')}k`;
  return `${(n / 1_000_000).toFixed(2).replace(/\.?0+$/, '')}M`;
}

/** Dollars with enough digits to see cents of cents. */
export function fmtUsd(n: number): string {
  return n < 0.01 ? `$${n.toFixed(4)}` : n < 10 ? `$${n.toFixed(3)}` : `$${n.toFixed(2)}`;
}
