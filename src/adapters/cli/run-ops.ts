// Parses `ops <group> <action> [--flags] [--json]`, validates the flags with
// the command's zod schema and prints the result (one JSON object with --json).
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { isDomainError } from '../../domain/errors.js';
import type { OpsCommand, OpsContext } from './command.js';

export interface OpsIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

export function findCommand(commands: OpsCommand[], argv: string[]): OpsCommand | undefined {
  return commands.find((c) => c.path[0] === argv[0] && c.path[1] === argv[1]);
}

export function usage(commands: OpsCommand[]): string {
  return ['Usage: npm run ops -- <command> [--flags] [--json]', '', ...commands.map((c) => `  ${c.path.join(' ')}  ${c.summary}`)].join('\n');
}

/**
 * A failure: with --json one JSON object { error, code } on stdout, like every
 * other result (README.md#operator-cli), else a line on stderr.
 */
export function reportFailure(io: OpsIo, json: boolean, code: string, message: string, text = `error: ${message}`): void {
  if (json) io.out(JSON.stringify({ error: message, code }));
  else io.err(text);
}

/**
 * The usage asked for (`--help`, `-h`, `help`, or no command at all), or null: every command, or those of the group named
 * first (`ops payouts --help`). Exit 0: asking is not an error.
 */
export function helpFor(commands: OpsCommand[], argv: string[]): string | null {
  const words = argv.filter((a) => a !== '--json');
  if (words.length > 0 && !words.some((a) => a === '--help' || a === '-h') && words[0] !== 'help') return null;
  const group = words[0] === 'help' ? words[1] : words[0];
  const mine = commands.filter((c) => c.path[0] === group);
  return usage(mine.length > 0 ? mine : commands);
}

/** Answers a command line that names no command; returns the exit code (2). */
export function refuseUnknownCommand(commands: OpsCommand[], argv: string[], io: OpsIo): number {
  const named = argv.filter((a) => !a.startsWith('--')).slice(0, 2).join(' ');
  reportFailure(io, argv.includes('--json'), 'VALIDATION_ERROR', `unknown command "${named}"`, `error: unknown command "${named}"\n\n${usage(commands)}`);
  return 2;
}

/** Runs one command; returns the process exit code. */
export async function runOps(commands: OpsCommand[], argv: string[], ctx: OpsContext, io: OpsIo): Promise<number> {
  const command = findCommand(commands, argv);
  if (!command) return refuseUnknownCommand(commands, argv, io);
  const json = argv.includes('--json');
  const given = new Set<string>();
  try {
    const names = command.positionals ?? [];
    const { values, positionals, tokens } = parseArgs({
      args: argv.slice(2),
      options: { ...command.flags, json: { type: 'boolean' } },
      strict: true,
      allowPositionals: names.length > 0,
      tokens: true,
    });
    // A flag given twice is refused, not silently the last one (an operator's typo must not pick the network).
    const seen = new Set<string>();
    for (const t of tokens) {
      if (t.kind !== 'option') continue;
      if (seen.has(t.name)) throw Object.assign(new Error(`--${t.name} is given more than once`), { code: 'ERR_PARSE_ARGS_REPEATED' });
      seen.add(t.name);
    }
    if (positionals.length > names.length) throw Object.assign(new Error(`unexpected argument ${positionals[names.length]}`), { code: 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' });
    const { json: _json, ...flags } = values;
    for (const [k, v] of Object.entries(flags)) if (v !== undefined) given.add(k);
    const named = Object.fromEntries(names.map((n, i) => [n, positionals[i]]));
    const input = command.input.parse({ ...flags, ...named });
    const result = await command.run(ctx, input);
    io.out(json ? JSON.stringify(result) : (command.describe?.(result) ?? JSON.stringify(result, null, 2)));
    return result.ok === false ? 1 : 0;
  } catch (err) {
    const failure = describeFailure(err, command, given);
    reportFailure(io, json, failure.code, failure.message);
    return failure.code === 'INTERNAL_ERROR' ? 1 : 2;
  }
}

function describeFailure(err: unknown, command: OpsCommand, given: ReadonlySet<string>): { code: string; message: string } {
  if (isDomainError(err)) return { code: err.code, message: err.message };
  if (err instanceof ZodError) {
    const i = err.issues[0]!;
    // A positional (the action of `sweep policy set`) is named as one, not as a flag.
    const name = String(i.path[0] ?? '');
    if ((command.positionals ?? []).includes(name)) return { code: 'VALIDATION_ERROR', message: `${command.path.join(' ')} <${name}>: ${i.message}` };
    // A flag left out is "required", whatever the schema says of the value it did not get.
    if (name in command.flags && !given.has(name) && i.path.length === 1) {
      return { code: 'VALIDATION_ERROR', message: i.message.startsWith(`--${name} is required`) ? i.message : `--${name} is required (${i.message})` };
    }
    return { code: 'VALIDATION_ERROR', message: `--${i.path.join('.')}: ${i.message}` };
  }
  if ((err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    const message = (err as Error).message;
    // parseArgs takes "--minimum -5" for a flag given no value: say what is wrong with the value instead.
    const ambiguous = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
    if (ambiguous) return { code: 'VALIDATION_ERROR', message: `${ambiguous[1]}: must not start with "-" (no amount, count or name here is negative)` };
    return { code: 'VALIDATION_ERROR', message };
  }
  return { code: 'INTERNAL_ERROR', message: (err as Error).message ?? String(err) };
}
