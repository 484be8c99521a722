// Running a process: read the configuration, start, and on SIGTERM or SIGINT
// stop taking work, finish what is in flight, close pools and exit 0 in time.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../adapters/logging/logger.js';
import { loadConfigOrExit, type Config } from './config.js';

export interface Running {
  close(): Promise<void>;
}

/** True when the module at `metaUrl` is the script node was asked to run. */
export function isEntrypoint(metaUrl: string): boolean {
  const argv1 = process.argv[1];
  if (!argv1) return false;
  try {
    return realpathSync(argv1) === realpathSync(fileURLToPath(metaUrl));
  } catch {
    return false;
  }
}

export function runProcess(name: string, start: (config: Config) => Promise<Running>): void {
  const config = loadConfigOrExit();
  const logger = createLogger({ level: config.logLevel, name });
  let stopping = false;
  start(config).then(
    (running) => {
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        const timer = setTimeout(() => {
          logger.error('shutdown timed out; exiting');
          process.exit(1);
        }, config.shutdownTimeoutMs + 1500);
        timer.unref();
        running.close().then(
          () => {
            logger.info('stopped');
            process.exit(0);
          },
          (err: unknown) => {
            logger.error({ err }, 'error while stopping');
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // Started by the sandbox supervisor: never outlive it, even if it is killed.
      if (process.connected) process.on('disconnect', () => stop('supervisor-gone'));
    },
    (err: unknown) => {
      logger.fatal({ err }, 'failed to start');
      process.exit(1);
    },
  );
}
