// The shape of an operator command. Each module under adapters/cli exports a
// list of these; the ops entrypoint only collects them, so adding a command
// never touches the existing ones.
import type PgBoss from 'pg-boss';
import type { InjectionToken } from 'tsyringe';
import { z } from 'zod';

export interface OpsContext {
  resolve: <T>(token: InjectionToken<T>) => T;
  /** The job queue, for commands whose work runs in another process (deposit rescan). */
  boss?: PgBoss;
}

export interface OpsCommand<S extends z.ZodType = z.ZodType> {
  /** e.g. ['workspace', 'create'] for `ops workspace create`. */
  path: [string, string];
  summary: string;
  /** Flag names → parseArgs option types; values are then validated by `input`. */
  flags: Record<string, { type: 'string' | 'boolean' }>;
  /** Names given to the words after the path, e.g. ['action'] for `fees tier set`. */
  positionals?: string[];
  input: S;
  /** The command reads the chains: the node adapters are loaded for it (TOKENS.BalanceReaders), for no other. */
  readsNodes?: true;
  run(ctx: OpsContext, input: z.infer<S>): Promise<Record<string, unknown>>;
  /** One human line for the result when --json is not given. A result with `ok: false` exits 1. */
  describe?(result: Record<string, unknown>): string;
}

export const defineCommand = <S extends z.ZodType>(c: OpsCommand<S>): OpsCommand => c as unknown as OpsCommand;
