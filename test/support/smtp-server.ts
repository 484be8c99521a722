// A real SMTP server for tests (the smtp-server package), on a free local
// port, keeping every message it accepts.
import { SMTPServer } from 'smtp-server';
import { freePort } from './free-port.js';

export interface ReceivedMail {
  from: string | null;
  to: string[];
  /** The message as received (headers and body, transfer encoding untouched). */
  raw: string;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const { mailFrom, rcptTo } = session.envelope;
        received.push({ from: mailFrom ? mailFrom.address : null, to: rcptTo.map((a) => a.address), raw: Buffer.concat(chunks).toString('utf8') });
        done();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
