// The shape of an operator command. Each module under adapters/cli exports a
// list of these; the ops entrypoint only collects them, so adding a command
// never touches the existing ones.
import type PgBoss from 'pg-boss';
import type { InjectionToken } from 'tsyringe';
import { z } from 'zod';
import type { NetworkSide } from '../../domain/money/networks.js';

/**
 * What the command line means where it depends on where ops runs: a bare chain
 * (--chain ETH) names the testnet outside production, the mainnet in it.
 */
export interface OpsMode {
  side: NetworkSide;
}

/** Outside production: the mode of tests and of the sandbox. */
export const SANDBOX_MODE: OpsMode = { side: 'test' };

export interface OpsContext {
  resolve: <T>(token: InjectionToken<T>) => T;
  /** The job queue, for commands whose work runs in another process (deposit rescan). */
  boss?: PgBoss;
  /** How bare chains are read; SANDBOX_MODE when not given. */
  mode?: OpsMode;
  /** A line of progress for a person watching (stderr, when it is a terminal); never part of the result. */
  progress?: (line: string) => void;
}

/** A flag's parseArgs type; what it means and whether it is required come from the command's zod schema. */
export type OpsFlag = { type: 'string' | 'boolean' };

export interface OpsCommand<S extends z.ZodType = z.ZodType> {
  /** e.g. ['workspace', 'create'] for `ops workspace create`. */
  path: [string, string];
  summary: string;
  /** Flag names → parseArgs option types; values are then validated by `input`. */
  flags: Record<string, OpsFlag>;
  /** Names given to the words after the path, e.g. ['action'] for `fees tier set`. */
  positionals?: string[];
  /** The schema of the flags and positionals; a function of the mode when a value depends on it (--chain ETH). */
  input: S | ((mode: OpsMode) => S);
  /** The command reads the chains: the node adapters are loaded for it (TOKENS.BalanceReaders), for no other. */
  readsNodes?: true;
  /** The command may take a while (nodes, the chain-worker, many rows): a person at a terminal is told it still works. */
  slow?: true;
  run(ctx: OpsContext, input: z.infer<S>): Promise<Record<string, unknown>>;
  /** One human line for the result when --json is not given. A result with `ok: false` exits 1. */
  describe?(result: Record<string, unknown>): string;
}

export const defineCommand = <S extends z.ZodType>(c: OpsCommand<S>): OpsCommand => c as unknown as OpsCommand;

/** The command's schema in this mode. */
export const inputSchema = (command: OpsCommand, mode: OpsMode): z.ZodType => (typeof command.input === 'function' ? command.input(mode) : command.input);

/** Where a command reports its progress: nowhere unless a person watches. */
export const progressOf = (ctx: OpsContext): ((line: string) => void) => ctx.progress ?? (() => {});
