// Structured JSON logs (pino). Secrets never reach a log: the auth headers,
// secrets and seeds are redacted by path wherever they could appear.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(opts: { level: string; name: string; destination?: 1 | 2 }): Logger {
  return pino(
    {
    name: opts.name,
    level: opts.level,
    base: { pid: process.pid },
    redact: {
      paths: [
        'req.headers["x-service-signature"]',
        'req.headers.authorization',
        // At the top, one and two levels down (pino paths take no deeper wildcard).
        ...['secret', 'secretCiphertext', 'seed', 'mnemonic', 'privateKey', 'masterSeed', 'encryptionKey'].flatMap((f) => [
          f,
          `*.${f}`,
          `*.*.${f}`,
        ]),
      ],
      censor: '[redacted]',
    },
    },
    pino.destination({ fd: opts.destination ?? 1, sync: true }),
  );
}
