import { once } from 'node:events';
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** Longest wait for an answer that the service should give without the rest of the body. */
const ANSWER_WAIT_MS = 15_000;

/**
 * Sends the headers of a request announcing `body` (its whole Content-Length) but only the first
 * `sentBytes` of it, and answers what the service replied before the rest was sent. A service
 * that read the body first would wait for the rest forever: the promise rejects instead.
 */
export async function answerBeforeBody(
  port: number,
  options: { method: string; path: string; headers: Record<string, string>; body: Buffer; sentBytes: number },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const outgoing = request({
    host: '127.0.0.1',
    port,
    method: options.method,
    path: options.path,
    headers: { ...options.headers, 'content-length': String(options.body.length) },
  });
  outgoing.on('error', () => undefined);
  outgoing.write(options.body.subarray(0, options.sentBytes));
  const timer = setTimeout(() => outgoing.destroy(new Error('no answer before the whole body was sent')), ANSWER_WAIT_MS);
  try {
    const [response] = (await once(outgoing, 'response')) as [IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') };
  } finally {
    clearTimeout(timer);
    outgoing.destroy();
  }
}
