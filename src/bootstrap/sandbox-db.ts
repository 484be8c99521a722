// Child process of `npm start` that owns the embedded PostgreSQL. It runs in
// its own process group, so Ctrl-C reaches only the supervisor, which stops
// the service processes first and this one last.
import { startEmbeddedPostgres } from '../adapters/sandbox/embedded-postgres.js';
import { loadConfigOrExit, reasonOf } from './config.js';

const config = loadConfigOrExit();
const db = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort }).catch((err: unknown) => {
  // One line; the supervisor then stops with its own.
  process.stderr.write(`embedded PostgreSQL: ${reasonOf(err)}\n`);
  process.exit(1);
});
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  db.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
process.send?.({ type: 'ready', url: db.url });
