/**
 * The one argument layer of every `trimline` command: each command declares its options once,
 * with what they do, and that declaration both parses the command line and writes the
 * command's `--help`. So a flag cannot be accepted without being explained, and every command
 * answers a wrong argument the same way: one line naming it and the help to read, exit 2.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './common';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** The value's placeholder in the help (string options), e.g. `N`, `FILE`. */
  readonly value?: string;
  /** What the option does, for `--help` (one or two lines). */
  readonly help: string;
}

/** A command's options by name. */
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  /** Usage lines, each starting with `trimline <name>`. */
  readonly usage: readonly string[];
  /** What the command does (a few lines). */
  readonly about: string;
  readonly options: O;
  /** Takes positional arguments (files, a prompt). */
  readonly positionals?: boolean;
}

/** The values of a command's options, typed from its declaration. */
export type OptionValues<O extends OptionSpecs> = {
  -readonly [K in keyof O]?: O[K] extends { readonly multiple: true }
    ? string[]
    : O[K] extends { readonly type: 'boolean' }
      ? boolean
      : string;
};

export interface ParsedCommand<O extends OptionSpecs> {
  readonly values: OptionValues<O>;
  readonly positionals: string[];
}

/** The command line of `spec`'s command; a wrong argument is a {@link UsageError} that names it. */
export function parseCommand<O extends OptionSpecs>(spec: CommandSpec<O>, args: readonly string[]): ParsedCommand<O> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, o] of Object.entries(spec.options)) {
    options[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  try {
    const r = parseArgs({ args: [...args], options, allowPositionals: spec.positionals === true, strict: true });
    return { values: { ...r.values } as OptionValues<O>, positionals: r.positionals };
  } catch (e) {
    throw new UsageError(argumentProblem(spec.name, e));
  }
}

/** One line for a parseArgs error: what is wrong and where the help is. */
export function argumentProblem(command: string, e: unknown): string {
  const err = e as { code?: string; message?: string };
  const message = err.message ?? String(e);
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const see = `see \`trimline ${command} --help\``;
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}; ${see}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}" (${command} takes none); ${see}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
      return `option ${flag} ${/does not take/.test(message) ? 'takes no value' : 'needs a value'}; ${see}`;
    }
    default:
      return `${message}; ${see}`;
  }
}

/** Column where option descriptions start in the help. */
const HELP_COLUMN = 26;

/** `--help` of a command: usage, what it does, and every option with what it does. */
export function commandHelp(spec: CommandSpec): string {
  const usage = spec.usage.length === 1 ? [`Usage: ${spec.usage[0]}`] : ['Usage:', ...spec.usage.map((u) => `  ${u}`)];
  const names = Object.entries(spec.options);
  const lines = [...usage, '', spec.about];
  if (names.length) lines.push('', 'Options:');
  for (const [name, o] of names) {
    const flag = `  ${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    const [first, ...rest] = o.help.split('\n');
    const indent = ' '.repeat(HELP_COLUMN);
    lines.push(flag.length < HELP_COLUMN ? `${flag.padEnd(HELP_COLUMN)}${first}` : `${flag}\n${indent}${first}`);
    for (const r of rest) lines.push(`${indent}${r}`);
  }
  lines.push(`  -h, --help`.padEnd(HELP_COLUMN) + 'this help');
  return lines.join('\n');
}

/** `--help` or `-h` among a command's arguments (before a `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}
