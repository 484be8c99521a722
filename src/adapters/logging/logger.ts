// Structured JSON logs (pino). Secrets never reach a log: the auth headers,
// secrets and seeds are redacted by path wherever they could appear.
import { pino, type Logger } from 'pino';

export type { Logger };

const SQL_START = /^\s*(select|insert|update|delete|with|alter|create|drop|lock|begin|commit|rollback)\b/i;
const QUERY_FIELDS = ['sql', 'params', 'parameters', 'bindings', 'query'];

/**
 * Database errors carry their SQL with the values inlined (MikroORM formats
 * queries client-side) and often the values again as fields. Logged errors
 * keep the database's own message, code, table and constraint, never the
 * statement or its values: they can be ciphertexts, signatures or metadata.
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as Record<string, unknown> | undefined;
  if (!out || typeof out !== 'object') return out;
  for (const field of QUERY_FIELDS) delete out[field];
  const message = typeof out.message === 'string' ? out.message : '';
  if (SQL_START.test(message)) {
    const cut = message.lastIndexOf(' - ');
    const safe = cut >= 0 ? message.slice(cut + 3) : '(query failed)';
    out.message = safe;
    if (typeof out.stack === 'string') out.stack = out.stack.split(message).join(safe);
  }
  return out;
}

/** `stream`: somewhere else than fd 1 or 2 (the sandbox's terminal formats the supervisor's lines). */
export function createLogger(opts: { level: string; name: string; destination?: 1 | 2; stream?: pino.DestinationStream }): Logger {
  return pino(
    {
    name: opts.name,
    level: opts.level,
    base: { pid: process.pid },
    serializers: { err: serializeError },
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
    opts.stream ?? pino.destination({ fd: opts.destination ?? 1, sync: true }),
  );
}
