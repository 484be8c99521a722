// A sleep that `wakeAll` cuts short: the chain-worker's loops pause between
// steps with it and wake at once when the process shuts down.
export class WakeableSleep {
  private wake: (() => void) | null = null;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const prev = this.wake;
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = () => {
        prev?.();
        done();
      };
    });
  }

  wakeAll(): void {
    this.wake?.();
  }
}
