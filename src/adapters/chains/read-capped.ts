// A node's answer read with a ceiling: a broken or hostile provider must not
// make a worker hold an answer of any size in memory (issue 30's outside
// review: a 50 MB result took the ops CLI to 440 MB).

/** The largest answer read from a node: far above eth_getLogs of 1000 busy BSC blocks or a batch of full blocks. */
export const MAX_ANSWER_BYTES = 128 * 1024 * 1024;

export class AnswerTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the node's answer is larger than ${Math.round(limit / 1024 / 1024)} MB`);
  }
}

/** The response body as text, or AnswerTooLargeError as soon as it passes `limit` bytes (the rest is not read). */
export async function readCapped(res: Response, limit = MAX_ANSWER_BYTES): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new AnswerTooLargeError(limit);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new AnswerTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
