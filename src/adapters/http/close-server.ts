// Stops an HTTP server for a graceful shutdown: no new connections, idle
// keep-alive connections closed at once (and as they turn idle), requests in
// flight given `graceMs` to finish. Connections still open after that (a
// client that connected and sent nothing, or is trickling a request in) are
// cut, so a stalled client can never hold the process past its budget.
import type { Server } from 'node:http';

export async function closeServer(server: Server, graceMs: number): Promise<{ cut: boolean }> {
  let cut = false;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  const deadline = setTimeout(() => {
    cut = true;
    server.closeAllConnections();
  }, graceMs);
  try {
    await closed;
  } finally {
    clearInterval(idle);
    clearTimeout(deadline);
  }
  return { cut };
}

/** The share of the shutdown budget that HTTP requests in flight get. */
export const httpGraceMs = (shutdownTimeoutMs: number): number => Math.max(500, shutdownTimeoutMs - 3000);
