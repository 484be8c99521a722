// Running a process: read the configuration, start, and on SIGTERM or SIGINT
// stop taking work, finish what is in flight, close pools and exit 0 in time.
import { once } from 'node:events';
import { realpathSync } from 'node:fs';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../adapters/logging/logger.js';
import { StartupError, loadConfigOrExit, type Config, type ParseOptions } from './config.js';

/** Waits for a server to listen; a port in use or an unknown HOST is one start-up line naming the setting. */
export async function listening(server: Server, portVariable: string, port: number, host: string): Promise<void> {
  try {
    await once(server, 'listening');
  } catch (err) {
    const code = (err as { code?: string }).code ?? String(err);
    const variable = code === 'EADDRINUSE' || code === 'EACCES' ? portVariable : 'HOST';
    throw new StartupError(`${variable}: cannot listen on ${host}:${port} (${code})`);
  }
}

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

export function runProcess(name: string, start: (config: Config) => Promise<Running>, opts: ParseOptions = {}): void {
  const config = loadConfigOrExit(process.env, opts);
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
      if (err instanceof StartupError) {
        process.stderr.write(`Startup error: ${err.message}\n`);
      } else {
        logger.fatal({ err }, 'failed to start');
      }
      process.exit(1);
    },
  );
}
