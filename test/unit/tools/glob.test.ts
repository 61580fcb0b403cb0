import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../../src/core/agent/tools/glob';

function matches(glob: string, path: string): boolean {
  return compileGlob(glob).test(path);
}

describe('compileGlob', () => {
  it('* stays within one segment', () => {
    expect(matches('*.ts', 'a.ts')).toBe(true);
    expect(matches('*.ts', 'src/a.ts')).toBe(false);
    expect(matches('src/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('*.ts', '.hidden.ts')).toBe(true);
  });

  it('** spans zero or more segments', () => {
    expect(matches('**/*.ts', 'a.ts')).toBe(true);
    expect(matches('**/*.ts', 'src/deep/a.ts')).toBe(true);
    expect(matches('src/**/a.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/**/a.ts', 'src/x/y/a.ts')).toBe(true);
    expect(matches('src/**', 'src/x/y/a.ts')).toBe(true);
    expect(matches('src/**', 'srcx/a.ts')).toBe(false);
    expect(matches('**', 'any/thing')).toBe(true);
    expect(matches('a**b', 'axxb')).toBe(true);
    expect(matches('a**b', 'ax/xb')).toBe(false);
  });

  it('? matches one character but not /', () => {
    expect(matches('a?c', 'abc')).toBe(true);
    expect(matches('a?c', 'a/c')).toBe(false);
    expect(matches('a?c', 'ac')).toBe(false);
  });

  it('{a,b} alternatives, nested and with globs inside', () => {
    expect(matches('*.{ts,tsx}', 'a.tsx')).toBe(true);
    expect(matches('*.{ts,tsx}', 'a.js')).toBe(false);
    expect(matches('{src,test}/**/*.ts', 'test/unit/a.ts')).toBe(true);
    expect(matches('{a,b{c,d}}', 'bd')).toBe(true);
    expect(matches('{a,b{c,d}}', 'b')).toBe(false);
  });

  it('character classes and escapes; regex specials are literal', () => {
    expect(matches('[abc].txt', 'b.txt')).toBe(true);
    expect(matches('[!abc].txt', 'b.txt')).toBe(false);
    expect(matches('[a-c].txt', 'c.txt')).toBe(true);
    expect(matches('a+b(1).txt', 'a+b(1).txt')).toBe(true);
    expect(matches('a.txt', 'abtxt')).toBe(false);
    expect(matches('\\*.txt', '*.txt')).toBe(true);
    expect(matches('\\*.txt', 'a.txt')).toBe(false);
    expect(matches('{unclosed', '{unclosed')).toBe(true);
  });

  it('ignores a leading ./', () => {
    expect(matches('./src/*.ts', 'src/a.ts')).toBe(true);
  });
});
