// Requests node's HTTP parser refuses before express sees them (headers over
// node's 16 KiB limit, malformed HTTP) still get the error body of 2.12
// instead of node's empty answer: 431 for oversized headers, 400 otherwise.
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';

function answer(socket: Duplex, status: number, reason: string, code: string, message: string): void {
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function answerClientErrors(server: Server): void {
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
