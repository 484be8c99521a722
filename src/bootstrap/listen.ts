// `npm run listen`: the workspace's webhooks on this machine, verified and
// printed (src/adapters/devtools/listen.ts; docs/quickstart.md).
import { runListen } from '../adapters/devtools/listen.js';

// The first signal asks the listener to stop: a trigger under way puts back what it changed, then the endpoint
// is removed. A second Ctrl-C says what is being waited for; a third quits at once.
let interrupts = 0;
const stop = new Promise<string>((resolve) => {
  process.on('SIGINT', () => {
    interrupts++;
    if (interrupts === 1) resolve('Ctrl-C');
    else if (interrupts === 2) process.stderr.write('Still stopping: a trigger under way puts back what it changed, then the endpoint is removed. Ctrl-C again quits at once and leaves both.\n');
    else process.exit(130);
  });
  process.once('SIGTERM', () => resolve('SIGTERM'));
  // The terminal closed: the endpoint goes too, before its port can be someone else's.
  process.once('SIGHUP', () => resolve('SIGHUP'));
});
const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
process.exitCode = await runListen(
  process.argv.slice(2),
  { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`), env: process.env, color },
  stop,
);
