// Parses `ops <group> <action> [--flags] [--json]`, validates the flags with
// the command's zod schema and prints the result (one JSON object with --json).
// The command line is checked before anything is opened: ops.ts refuses a bad
// flag without starting a database.
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { isDomainError } from '../../domain/errors.js';
import { SANDBOX_MODE, inputSchema, type OpsCommand, type OpsContext, type OpsMode } from './command.js';
import { commandHelp, commandList, helpFor as helpOf } from './command-help.js';
import { heartbeat } from './progress.js';

export interface OpsIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** A command line the command accepts: its typed input, and whether --json was given. */
export type ParsedCommandLine = { ok: true; input: unknown; json: boolean } | { ok: false; json: boolean; message: string };

export function findCommand(commands: OpsCommand[], argv: string[]): OpsCommand | undefined {
  return commands.find((c) => c.path[0] === argv[0] && c.path[1] === argv[1]);
}

/** Every command's summary, or those of one group. */
export const usage = commandList;

/** The help asked for, or null (command-help.ts). */
export const helpFor = (commands: OpsCommand[], argv: string[], mode: OpsMode = SANDBOX_MODE): string | null => helpOf(commands, argv, mode);

/**
 * A failure: with --json one JSON object { error, code } on stdout, like every
 * other result (README.md#operator-cli), else `text` on stderr.
 */
export function reportFailure(io: OpsIo, json: boolean, code: string, message: string, text = `error: ${message}`): void {
  if (json) io.out(JSON.stringify({ error: message, code }));
  else io.err(text);
}

/** Answers a command line that names no command, with the commands of its group if it names one; returns the exit code (2). */
export function refuseUnknownCommand(commands: OpsCommand[], argv: string[], io: OpsIo): number {
  const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2);
  const group = commands.filter((c) => c.path[0] === words[0]);
  const message = `unknown command "${words.join(' ')}"`;
  reportFailure(io, argv.includes('--json'), 'VALIDATION_ERROR', message, `error: ${message}\n\n${usage(group.length > 0 ? group : commands)}`);
  return 2;
}

/** A refused command line: one line naming the problem, then the command's own usage (or one JSON object). Exit 2. */
export function refuseCommandLine(command: OpsCommand, message: string, json: boolean, io: OpsIo, mode: OpsMode = SANDBOX_MODE): number {
  reportFailure(io, json, 'VALIDATION_ERROR', message, `error: ${message}\n\n${commandHelp(command, mode)}`);
  return 2;
}

/** Reads the flags and positionals after the command's path and validates them with its schema. */
export function parseCommandLine(command: OpsCommand, argv: string[], mode: OpsMode): ParsedCommandLine {
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
      if (seen.has(t.name)) return { ok: false, json, message: `--${t.name} is given more than once` };
      seen.add(t.name);
    }
    if (positionals.length > names.length) return { ok: false, json, message: `unexpected argument ${positionals[names.length]}` };
    const { json: _json, ...flags } = values;
    for (const [k, v] of Object.entries(flags)) if (v !== undefined) given.add(k);
    const named = Object.fromEntries(names.map((n, i) => [n, positionals[i]]));
    return { ok: true, json, input: inputSchema(command, mode).parse({ ...flags, ...named }) };
  } catch (err) {
    return { ok: false, json, message: describeRefusal(err, command, given) };
  }
}

/** Runs a command on an input parseCommandLine accepted; returns the process exit code. */
export async function runParsed(command: OpsCommand, input: unknown, json: boolean, ctx: OpsContext, io: OpsIo): Promise<number> {
  const stop = command.slow && ctx.progress ? heartbeat(command.path.join(' '), ctx.progress) : () => {};
  try {
    const result = await command.run(ctx, input);
    io.out(json ? JSON.stringify(result) : (command.describe?.(result) ?? JSON.stringify(result, null, 2)));
    return result.ok === false ? 1 : 0;
  } catch (err) {
    if (isDomainError(err)) {
      // A value the use case refused is a bad flag too: its usage follows, as for one the schema refused.
      if (err.code === 'VALIDATION_ERROR') return refuseCommandLine(command, err.message, json, io, ctx.mode);
      reportFailure(io, json, err.code, err.message);
      return 2;
    }
    reportFailure(io, json, 'INTERNAL_ERROR', (err as Error).message ?? String(err));
    return 1;
  } finally {
    stop();
  }
}

/** Runs one command line; returns the process exit code. */
export async function runOps(commands: OpsCommand[], argv: string[], ctx: OpsContext, io: OpsIo): Promise<number> {
  const command = findCommand(commands, argv);
  if (!command) return refuseUnknownCommand(commands, argv, io);
  const parsed = parseCommandLine(command, argv, ctx.mode ?? SANDBOX_MODE);
  if (!parsed.ok) return refuseCommandLine(command, parsed.message, parsed.json, io, ctx.mode);
  return runParsed(command, parsed.input, parsed.json, ctx, io);
}

/** The one line that says what is wrong with the command line. */
function describeRefusal(err: unknown, command: OpsCommand, given: ReadonlySet<string>): string {
  if (isDomainError(err)) return err.message;
  if (err instanceof ZodError) {
    const i = err.issues[0]!;
    // A positional (the action of `sweep policy set`) is named as one, not as a flag.
    const name = String(i.path[0] ?? '');
    if ((command.positionals ?? []).includes(name)) return `${command.path.join(' ')} <${name}>: ${i.message}`;
    // A flag left out is "required", whatever the schema says of the value it did not get.
    if (name in command.flags && !given.has(name) && i.path.length === 1) {
      return i.message.startsWith(`--${name} is required`) ? i.message : `--${name} is required (${i.message})`;
    }
    return `--${i.path.join('.')}: ${i.message}`;
  }
  const message = (err as Error).message ?? String(err);
  // parseArgs takes "--minimum -5" for a flag given no value: say what is wrong with the value instead.
  const ambiguous = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
  if (ambiguous) return `${ambiguous[1]}: must not start with "-" (no amount, count or name here is negative)`;
  // parseArgs' own sentences carry advice for scripts ("To specify a positional argument starting with a '-'..."): the first is the problem.
  return message.split(/(?<=\.) /)[0]!;
}
