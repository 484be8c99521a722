// A node's answer is read up to a ceiling, never whole whatever its size.
import { describe, expect, it } from 'vitest';
import { AnswerTooLargeError, readCapped } from '../../../src/adapters/chains/read-capped.js';

const streamed = (chunks: number, size: number) => {
  let sent = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ >= chunks) return c.close();
        c.enqueue(new Uint8Array(size).fill(97));
      },
    }),
  );
};

describe('readCapped', () => {
  it('reads an answer under the ceiling, and stops at the ceiling without reading the rest', async () => {
    expect(await readCapped(new Response('{"result":"0x1"}'), 100)).toBe('{"result":"0x1"}');
    await expect(readCapped(streamed(1000, 1024), 10 * 1024)).rejects.toBeInstanceOf(AnswerTooLargeError);
    await expect(readCapped(new Response('x', { headers: { 'content-length': String(10 ** 9) } }), 1024)).rejects.toThrow(/larger than/);
  });
});
