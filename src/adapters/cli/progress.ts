// Progress for a person at a terminal while a slow ops command works (nodes
// probed, the chain-worker waited for, months settled): lines on stderr, only
// when stderr is a terminal, so that stdout and --json's one object stay the
// result alone and scripts see nothing new.

/** The progress sink of a process: stderr's lines when it is a terminal, else none. */
export function terminalProgress(stream: { isTTY?: boolean; write: (s: string) => unknown }): ((line: string) => void) | undefined {
  return stream.isTTY ? (line) => void stream.write(`${line}\n`) : undefined;
}

/** Says every `everyMs` that `what` still works, from the first period on; returns the function that stops it. */
export function heartbeat(what: string, progress: (line: string) => void, everyMs = 5_000): () => void {
  const started = Date.now();
  const timer = setInterval(() => progress(`${what}: still working (${Math.round((Date.now() - started) / 1000)} s)`), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
