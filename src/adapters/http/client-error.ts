// Requests node's HTTP server refuses before express sees them (headers over
// node's 16 KiB limit, malformed HTTP, an Expect it cannot meet, no Host)
// still get the error body of 2.12 instead of node's empty answer.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { RequestHandler } from 'express';
import type { Duplex } from 'node:stream';

function answer(socket: Duplex, status: number, reason: string, code: string, message: string): void {
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Request-Id: ${randomUUID()}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const expectationFailed = JSON.stringify({ error: 'Only "Expect: 100-continue" is supported', code: 'VALIDATION_ERROR' });

export function answerClientErrors(server: Server): void {
  // node would answer an HTTP/1.1 request without Host with an empty 400;
  // the app answers it instead (see requireHost).
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  // CONNECT (a proxy tunnel) is not routed by express; node would just close the socket.
  server.on('connect', (_req, socket: Duplex) => {
    answer(socket, 404, 'Not Found', 'NOT_FOUND', 'No such route');
  });
  server.on('checkExpectation', (_req, res) => {
    res
      .writeHead(417, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(expectationFailed),
        Connection: 'close',
      })
      .end(expectationFailed);
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    if (err.code === 'HPE_HEADER_OVERFLOW') {
      answer(socket, 431, 'Request Header Fields Too Large', 'PAYLOAD_TOO_LARGE', 'Request headers are too large');
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      answer(socket, 408, 'Request Timeout', 'VALIDATION_ERROR', 'The request was not received in time');
    } else {
      answer(socket, 400, 'Bad Request', 'VALIDATION_ERROR', 'Malformed HTTP request');
    }
  });
}

/**
 * A request without Host is refused with the 2.12 body, before anything else
 * runs, whatever its HTTP version (HTTP/1.0 made Host optional; the API does not).
 */
export const requireHost: RequestHandler = (req, res, next) => {
  if (req.headers.host === undefined) {
    res.status(400).json({ error: 'A request needs a Host header', code: 'VALIDATION_ERROR' });
    return;
  }
  next();
};
