// A sleep that `wakeAll` cuts short: the chain-worker's loops pause between
// steps with it and wake at once when the process shuts down. Only the
// pauses still running are held (a finished one lets go of its callback).
export class WakeableSleep {
  private readonly pending = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.pending.add(done);
    });
  }

  wakeAll(): void {
    for (const done of [...this.pending]) done();
  }

  /** Pauses running now (for tests: never grows with the number of pauses taken). */
  get size(): number {
    return this.pending.size;
  }
}
