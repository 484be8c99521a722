// `npm run listen`: the workspace's webhooks on this machine, verified and
// printed (src/adapters/devtools/listen.ts; docs/quickstart.md).
import { runListen } from '../adapters/devtools/listen.js';

const stop = new Promise<string>((resolve) => {
  process.once('SIGINT', () => resolve('Ctrl-C'));
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
