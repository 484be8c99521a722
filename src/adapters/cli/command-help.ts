// The usage of `npm run ops`: the list of commands (or a group's), and one
// command's own help with its flags, whether each is required and what it
// takes, read from the command's zod schema so that help and validation never
// disagree.
import type { z } from 'zod';
import { inputSchema, type OpsCommand, type OpsMode } from './command.js';

const PROGRAM = 'npm run ops --';

/** The zod internals help reads: each schema's kind and what wraps what. */
interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  shape?: Record<string, Schema>;
  options?: Schema[];
  entries?: Record<string, string>;
  values?: unknown[];
  format?: string;
  checks?: { _zod: { def: { check: string; error?: () => unknown } } }[];
}
type Schema = z.ZodType & { _zod: { def: Def; optin?: string }; description?: string };

const defOf = (s: Schema): Def => s._zod.def;

/** The schemas `s` wraps, outermost first (optional, default, the input side of a pipe or transform). */
function layers(s: Schema): Schema[] {
  const out = [s];
  for (let cur = s; ; ) {
    const d = defOf(cur);
    const next = d.innerType ?? (d.type === 'pipe' ? d.in : undefined);
    if (!next) return out;
    out.push(next);
    cur = next;
  }
}

const FORMATS: Record<string, [placeholder: string, text: string]> = {
  uuid: ['ID', 'an id (UUID)'],
  email: ['E-MAIL', 'an e-mail address'],
  datetime: ['TIME', 'a time with its offset, e.g. 2025-07-01T00:00:00Z'],
};

/** A flag as help shows it: `--chain NETWORK`, and what it takes. */
function describeFlag(name: string, flagType: 'string' | 'boolean', s: Schema): { label: string; text: string } {
  const all = layers(s);
  const leaf = all[all.length - 1]!;
  const d = defOf(leaf);
  const described = all.find((l) => l.description)?.description;
  const format = d.format ? FORMATS[d.format] : undefined;
  const entries = d.entries ? Object.values(d.entries) : undefined;
  const check = all
    .flatMap((l) => defOf(l).checks ?? [])
    .map((c) => c._zod.def.error?.())
    .find((m): m is string => typeof m === 'string');
  const text = described ?? format?.[1] ?? (entries ? `one of ${entries.join(', ')}` : check) ?? '';
  if (flagType === 'boolean') return { label: `--${name}`, text: text || 'a switch, no value' };
  const placeholder = name === 'chain' ? 'NETWORK' : (format?.[0] ?? (entries && entries.length <= 3 ? entries.join('|') : name.toUpperCase().replace(/-/g, '_')));
  return { label: `--${name} ${placeholder}`, text };
}

/** The variants of a command: one per action of a union schema (`sweep policy set|show`), else one. */
function variants(schema: Schema): { action?: string; shape: Record<string, Schema> }[] {
  const d = defOf(schema);
  if (d.type === 'union') {
    return (d.options ?? []).map((o) => {
      const shape = defOf(o).shape ?? {};
      const literal = shape.action ? defOf(shape.action).values?.[0] : undefined;
      return { action: typeof literal === 'string' ? literal : undefined, shape };
    });
  }
  return [{ shape: d.shape ?? {} }];
}

// 'optional' for .optional(), another word for .default(): either way the flag may be left out.
const isOptional = (s: Schema) => s._zod.optin !== undefined;

/** `ops <group> <action>`'s own usage: its line(s), summary and flags. */
export function commandHelp(command: OpsCommand, mode: OpsMode): string {
  const name = command.path.join(' ');
  const lines: string[] = [];
  const sections: string[] = [];
  for (const v of variants(inputSchema(command, mode) as Schema)) {
    const positionals = (command.positionals ?? []).map((p) => (p === 'action' && v.action ? v.action : `<${p}>`));
    const flags = Object.entries(command.flags)
      .filter(([flag]) => flag in v.shape)
      .map(([flag, spec]) => ({ ...describeFlag(flag, spec.type, v.shape[flag]!), required: !isOptional(v.shape[flag]!) }));
    const synopsis = flags.map((f) => (f.required ? f.label : `[${f.label}]`));
    lines.push(`${PROGRAM} ${[name, ...positionals, ...synopsis].join(' ')} [--json]`);
    if (flags.length === 0) continue;
    const width = Math.max(...flags.map((f) => f.label.length));
    sections.push(
      [
        `Flags${v.action ? ` of ${name} ${v.action}` : ''}:`,
        ...flags.map((f) => `  ${f.label.padEnd(width)}  ${f.required ? 'required' : 'optional'}${f.text ? `  ${f.text}` : ''}`),
      ].join('\n'),
    );
  }
  return [
    `Usage: ${lines[0]}`,
    ...lines.slice(1).map((l) => `       ${l}`),
    '',
    command.summary,
    '',
    ...sections.flatMap((s) => [s, '']),
    'Every command:',
    '  --json      one JSON object on stdout: the result, or {"error","code"} for a failure',
    '  -h, --help  this help',
  ].join('\n');
}

/** The list of commands, all or a group's. */
export function commandList(commands: OpsCommand[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  return [
    `Usage: ${PROGRAM} <command> [--flags] [--json]`,
    '',
    // A group's commands together, groups in the order they first appear.
    ...[...commands]
      .sort((a, b) => commands.findIndex((c) => c.path[0] === a.path[0]) - commands.findIndex((c) => c.path[0] === b.path[0]))
      .map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    `${PROGRAM} <command> --help shows a command's flags.`,
  ].join('\n');
}

const asksHelp = (a: string) => a === '--help' || a === '-h';

/**
 * The usage asked for (`--help`, `-h`, `help`, or no command at all), or null:
 * a command's own help when one is named, else the commands of the group named
 * first (`ops payouts --help`), else every command. Asking is not an error: exit 0.
 */
export function helpFor(commands: OpsCommand[], argv: string[], mode: OpsMode): string | null {
  const words = argv.filter((a) => a !== '--json');
  if (words.length > 0 && !words.some(asksHelp) && words[0] !== 'help') return null;
  const named = (words[0] === 'help' ? words.slice(1) : words).filter((a) => !asksHelp(a));
  const command = commands.find((c) => c.path[0] === named[0] && c.path[1] === named[1]);
  if (command) return commandHelp(command, mode);
  const group = commands.filter((c) => c.path[0] === named[0]);
  return commandList(group.length > 0 ? group : commands);
}
