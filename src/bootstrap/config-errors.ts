// The errors configuration and start-up stop a process with: one line, naming
// the variable (ConfigError) or what is wrong beyond the environment
// (StartupError).

/** A setting missing or malformed: its message names the variable. */
export class ConfigError extends Error {}

/** A start-up failure that is not the environment's fault (e.g. an unmigrated database): one line, exit 1. */
export class StartupError extends Error {}

/** What went wrong, for a one-line message: the error's message, else its code. */
export function reasonOf(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.message === 'string' && e.message) return e.message;
  if (typeof e?.code === 'string') return e.code;
  return String(err);
}
