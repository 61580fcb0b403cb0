/**
 * Theme outside VS Code. Inside VS Code the body carries `vscode-light|dark|high-contrast`
 * and the `--vscode-*` variables. In a plain browser the standalone CSS defines those
 * variables for the same three body classes, chosen from `?theme=` or the OS preference;
 * the toolkit reads them on load and whenever the body class changes.
 */
export type ThemeKind = 'light' | 'dark' | 'high-contrast';

const CLASSES: Record<ThemeKind, string> = {
  light: 'vscode-light',
  dark: 'vscode-dark',
  'high-contrast': 'vscode-high-contrast',
};

/** Apply a theme to the standalone page (no-op in VS Code, which owns the body classes). */
export function applyTheme(kind: ThemeKind): void {
  const body = document.body;
  body.classList.add('tl-standalone');
  for (const c of Object.values(CLASSES)) body.classList.remove(c);
  body.classList.add(CLASSES[kind]);
  body.setAttribute('data-vscode-theme-kind', CLASSES[kind]);
}

/** The theme asked for in the URL, else the OS preference. */
export function initialTheme(): ThemeKind {
  const q = new URLSearchParams(location.search).get('theme');
  if (q === 'light' || q === 'dark' || q === 'high-contrast') return q;
  if (matchMedia('(forced-colors: active)').matches) return 'high-contrast';
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}
