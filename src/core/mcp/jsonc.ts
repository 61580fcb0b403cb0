/**
 * JSON with comments, as VS Code writes `.vscode/mcp.json`: `//` and block
 * comments and trailing commas are allowed. Strings are copied untouched
 * (a `//` or `,}` inside a string stays), then JSON.parse does the rest.
 */

/** The value of `text`; throws JSON.parse's error on anything but comments and trailing commas. */
export function parseJsonc(text: string): unknown {
  let out = '';
  // A comma is held back until the next token shows it is not a trailing one.
  let comma = false;
  const token = (t: string): void => {
    if (comma && t !== '}' && t !== ']') out += ',';
    comma = false;
    out += t;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      token(text.slice(i, j + 1));
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === ',') {
      if (comma) out += ',';
      comma = true;
      i++;
    } else if (/\s/.test(c)) {
      out += c;
      i++;
    } else {
      token(c);
      i++;
    }
  }
  if (comma) out += ',';
  return JSON.parse(out);
}
