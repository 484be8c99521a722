// What a signed request reads of the operator's settings, read once with the
// request's admission (issue 35, the request path). Every signed request ran
// its admission statement and then, for the networks' switches, a second
// statement of its own: a round trip to PostgreSQL that on this machine costs
// more than the read. The admission statement now also returns the switches
// (docs/performance.md, "The switches read with the admission"), kept here for
// the rest of the request: the switches as of the start of its admission
// statement, so an operator's switch holds for every request whose admission
// starts after it commits (ADR 0039 on the window of a request in flight). Outside a request (the workers,
// the CLI, the dashboard) nothing is kept and every use reads the table.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestSnapshot {
  /** The network_switches rows, network → enabled, as the admission statement read them. */
  switches?: Record<string, boolean>;
}

const scope = new AsyncLocalStorage<RequestSnapshot>();

/** Runs `fn` (the rest of a request) with a snapshot of its own, empty until its admission fills it. */
export function inRequestScope<T>(fn: () => T): T {
  return scope.run({}, fn);
}

/** The running request's snapshot; undefined outside a request. */
export function requestSnapshot(): RequestSnapshot | undefined {
  return scope.getStore();
}
