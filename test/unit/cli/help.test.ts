import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_HELP, wantsHelp } from '../../../src/cli/help';

describe('trimline <command> --help', () => {
  it('has help for every command main.ts dispatches', () => {
    const main = readFileSync('src/cli/main.ts', 'utf8');
    const commands = new Set([...main.matchAll(/command === '([a-z]+)'/g), ...main.matchAll(/case '([a-z]+)'/g)].map((m) => m[1]));
    commands.delete('help');
    expect(commands.size).toBeGreaterThanOrEqual(7);
    for (const c of commands) expect(COMMAND_HELP[c], c).toMatch(new RegExp(`trimline ${c}\\b`));
  });

  it('asks for help on --help or -h before a --, not after', () => {
    expect(wantsHelp(['x', '--help'])).toBe(true);
    expect(wantsHelp(['-h'])).toBe(true);
    expect(wantsHelp(['--', '--help'])).toBe(false);
    expect(wantsHelp(['--json'])).toBe(false);
  });
});
