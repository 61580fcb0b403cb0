/**
 * One CLI voice: every command's options declared once, explained in its --help, and wrong arguments named the same
 * way.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { argumentProblem, commandHelp, parseCommand, wantsHelp } from '../../../src/cli/args';
import { COMMAND_HELP, COMMANDS, PROXY_COMMAND, REPORT_COMMAND, STRATEGIES_COMMAND } from '../../../src/cli/commands';
import { UsageError } from '../../../src/cli/common';

describe('trimline <command> --help', () => {
  it('has help for every command main.ts dispatches', () => {
    const main = readFileSync('src/cli/main.ts', 'utf8');
    const commands = new Set([...main.matchAll(/case '([a-z]+)'/g)].map((m) => m[1]));
    expect(commands.size).toBeGreaterThanOrEqual(8);
    for (const c of commands) expect(COMMAND_HELP[c], c).toMatch(new RegExp(`trimline ${c}\\b`));
  });

  it('explains every option of every command', () => {
    for (const c of COMMANDS) {
      const help = commandHelp(c);
      for (const [name, o] of Object.entries(c.options)) {
        expect(o.help.trim().length, `${c.name} --${name}`).toBeGreaterThan(10);
        expect(help, `${c.name} --${name}`).toMatch(new RegExp(`--${name}\\b.*\\S`));
      }
    }
    expect(COMMAND_HELP.proxy).toMatch(/--cache-diagnostics\s+ask the API why/);
    expect(COMMAND_HELP.proxy).toMatch(/--verbose\s+session events/);
    expect(COMMAND_HELP.proxy).toMatch(/--journal DIR\s+journal each proxied session/);
  });

  it('asks for help on --help or -h before a --, not after', () => {
    expect(wantsHelp(['x', '--help'])).toBe(true);
    expect(wantsHelp(['-h'])).toBe(true);
    expect(wantsHelp(['--', '--help'])).toBe(false);
    expect(wantsHelp(['--json'])).toBe(false);
  });
});

describe('the argument layer', () => {
  const problem = (spec: Parameters<typeof parseCommand>[0], args: string[]): string => {
    try {
      parseCommand(spec, args);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error('parsed');
  };

  it('names an unknown option and the help to read', () => {
    expect(problem(REPORT_COMMAND, ['--nope'])).toBe('unknown option --nope; see `trimline report --help`');
    expect(problem(PROXY_COMMAND, ['-z'])).toBe('unknown option -z; see `trimline proxy --help`');
  });

  it('names a missing value, a value given to a switch, and a stray argument', () => {
    expect(problem(REPORT_COMMAND, ['--html'])).toBe('option --html needs a value; see `trimline report --help`');
    expect(problem(STRATEGIES_COMMAND, ['--json=1'])).toBe(
      'option --json takes no value; see `trimline strategies --help`',
    );
    expect(problem(STRATEGIES_COMMAND, ['extra'])).toBe(
      'unexpected argument "extra" (strategies takes none); see `trimline strategies --help`',
    );
  });

  it('parses declared options with their types', () => {
    const r = parseCommand(REPORT_COMMAND, ['a', '-s', 'x', '--strategy', 'y', '--json', '--workers', '2']);
    expect(r.positionals).toEqual(['a']);
    expect(r.values).toEqual({ strategy: ['x', 'y'], json: true, workers: '2' });
  });

  it("keeps any other error's message, with the help to read", () => {
    expect(argumentProblem('run', new Error('odd'))).toBe('odd; see `trimline run --help`');
  });
});
