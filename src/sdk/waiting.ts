// Waiting for a resource to reach a status by polling it (client.waitFor):
// which statuses lead where, and the polling loop. Two identical signed
// requests in the same second are a replay (docs/api.md#time-window-and-replays),
// so polls are at least a second apart: each GET of the resource is signed
// in a later second than the one before.
import { setTimeout as sleep } from 'node:timers/promises';
import { UnexpectedStatusError, WaitTimeoutError } from './errors.js';
import type { DepositStatus } from './resources/deposits.js';
import type { DripStatus } from './resources/faucet.js';
import type { WithdrawalStatus } from './resources/withdrawals.js';

export interface WaitOptions {
  /** Give up after this long with WaitTimeoutError. Default 120000 (two minutes). */
  timeoutMs?: number;
  /** Between the end of one poll and the start of the next; at least 1000 (the default). */
  intervalMs?: number;
  /** Stops the wait; it rejects with the signal's reason. */
  signal?: AbortSignal;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 120_000;
/** One poll a second at most: an identical signed GET in the same second is REPLAY_DETECTED. */
export const MIN_POLL_INTERVAL_MS = 1_000;

/** How a resource's status moves: the way to success in order, and the statuses it never leaves. */
export interface Lifecycle<S extends string> {
  path: readonly S[];
  final: readonly S[];
}

/**
 * UNDER_REVIEW is a detour (PENDING → UNDER_REVIEW → PENDING), not a step of
 * the way, so a wait for PENDING goes on through it.
 */
export const WITHDRAWAL_LIFECYCLE: Lifecycle<WithdrawalStatus> = {
  path: ['PENDING_APPROVAL', 'PENDING', 'PROCESSING', 'CONFIRMING', 'CONFIRMED'],
  final: ['CONFIRMED', 'FAILED', 'CANCELLED'],
};

/**
 * A FLAGGED deposit waits for the operator (released: CONFIRMED; rejected:
 * REJECTED), so a wait goes on through it. A swept deposit was confirmed
 * first: a wait for CONFIRMED ends at SWEPT too.
 */
export const DEPOSIT_LIFECYCLE: Lifecycle<DepositStatus> = {
  path: ['DETECTED', 'CONFIRMING', 'CONFIRMED', 'SWEPT'],
  final: ['SWEPT', 'FAILED', 'REJECTED'],
};

export const DRIP_LIFECYCLE: Lifecycle<DripStatus> = {
  path: ['QUEUED', 'SENDING', 'COMPLETED'],
  final: ['COMPLETED', 'FAILED'],
};

/** The status asked for, or a later step on the way to success (CONFIRMED satisfies a wait for CONFIRMING). */
export function hasReached<S extends string>(lifecycle: Lifecycle<S>, status: S, wanted: S): boolean {
  if (status === wanted) return true;
  const want = lifecycle.path.indexOf(wanted);
  return want >= 0 && lifecycle.path.indexOf(status) > want;
}

export interface PollClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

export const realClock: PollClock = {
  now: () => Date.now(),
  async sleep(ms, signal) {
    try {
      await sleep(ms, undefined, { signal });
    } catch (err) {
      throw signal?.aborted ? signal.reason : err;
    }
  },
};

export interface StatusWait<R extends { status: string }> {
  /** Reads the resource once (one signed GET, retried by the client as any GET). */
  read: (signal: AbortSignal | undefined) => Promise<R>;
  lifecycle: Lifecycle<R['status']>;
  wanted: R['status'];
  /** Names the resource in error messages, e.g. "withdrawal 0b6c…". */
  what: string;
}

/**
 * Reads until the resource has the wanted status (or a later step on its way)
 * and returns that read. Rejects with UnexpectedStatusError at a final status
 * that is not the wanted one, and with WaitTimeoutError when the next poll
 * would start after `timeoutMs`. An error of a read (NotFoundError, ...)
 * ends the wait as it is.
 */
export async function waitForStatus<R extends { status: string }>(
  wait: StatusWait<R>,
  options: WaitOptions = {},
  clock: PollClock = realClock,
): Promise<R> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const intervalMs = Math.max(MIN_POLL_INTERVAL_MS, options.intervalMs ?? MIN_POLL_INTERVAL_MS);
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const resource = await wait.read(options.signal);
    const status = resource.status as R['status'];
    if (hasReached(wait.lifecycle, status, wait.wanted)) return resource;
    if (wait.lifecycle.final.includes(status)) {
      throw new UnexpectedStatusError<R>({
        message: `${wait.what} ended ${status}, not ${wait.wanted}`,
        wanted: wait.wanted,
        reached: status,
        resource,
      });
    }
    if (clock.now() + intervalMs > deadline) {
      throw new WaitTimeoutError<R>({
        message: `${wait.what} is still ${status} after ${timeoutMs} ms, not ${wait.wanted}`,
        wanted: wait.wanted,
        resource,
      });
    }
    await clock.sleep(intervalMs, options.signal);
  }
}
