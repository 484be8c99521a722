// The sandbox's terminal for a person (npm start at a TTY): each process's
// JSON log line becomes one readable, coloured line through pino-pretty
// (time, level, process, message, then the fields). Machines still get JSON:
// when stdout is not a terminal, with LOG_FORMAT=json, and always in
// production, where this module is not even installed (a dev dependency).
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { Writable as WritableStream } from 'node:stream';
import { prettyFactory } from 'pino-pretty';

export type LineFormatter = (line: string) => string;

export function prettyFormatter(color: boolean): LineFormatter {
  const format = prettyFactory({
    colorize: color,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,name',
    messageFormat: '{name}: {msg}',
    singleLine: true,
  });
  return (line) => {
    if (!line.startsWith('{')) return `${line}\n`;
    try {
      return format(line);
    } catch {
      return `${line}\n`;
    }
  };
}

/** Copies a child's output to `out`, line by line, formatted. */
export function pipePretty(from: Readable, out: Writable, format: LineFormatter): void {
  createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => out.write(format(line)));
}

/** A destination for the supervisor's own logger that writes formatted lines. */
export function prettyDestination(out: Writable, format: LineFormatter): Writable {
  return new WritableStream({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) out.write(format(line));
      done();
    },
  });
}
