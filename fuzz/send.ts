import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { FuzzRequest } from './request.ts';

export type FuzzResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  durationMs: number;
  /** Set when no HTTP answer came back (socket error, timeout). */
  error?: string;
};

/** How long one answer may take before the fuzzer stops waiting, in milliseconds. */
const GIVE_UP_MS = 15_000;
const MAX_KEPT_BODY = 8 * 1024 * 1024;

export function makeSender(port: number, concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const send = (request: FuzzRequest): Promise<FuzzResponse> => (request.raw ? sendRaw(port, request.raw) : sendHttp(agent, port, request));
  return { send, close: () => agent.destroy() };
}

function sendHttp(agent: Agent, port: number, request: FuzzRequest): Promise<FuzzResponse> {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.target,
        // Framed always: Node's client sends an unframed body after a GET head otherwise.
        headers: request.body ? { ...request.headers, 'content-length': String(request.body.length) } : request.headers,
        agent,
        timeout: GIVE_UP_MS,
      },
      (incoming) => {
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_KEPT_BODY) chunks.push(chunk);
        });
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
            durationMs: performance.now() - started,
          }),
        );
        incoming.on('error', (error) =>
          resolve({ status: 0, headers: {}, text: '', durationMs: performance.now() - started, error: String(error) }),
        );
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('no answer in time')));
    // A CONNECT answer arrives as 'connect', not as a response.
    outgoing.on('connect', (incoming, socket) => {
      socket.destroy();
      resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: '', durationMs: performance.now() - started });
    });
    const limit = setTimeout(() => outgoing.destroy(new Error('no answer in time')), GIVE_UP_MS);
    outgoing.on('close', () => clearTimeout(limit));
    outgoing.on('error', (error) =>
      resolve({ status: 0, headers: {}, text: '', durationMs: performance.now() - started, error: String(error) }),
    );
    outgoing.end(request.body);
  });
}

/** Sends bytes as they are and reads the answer until the server closes (Node's parser errors close). */
function sendRaw(port: number, bytes: Buffer): Promise<FuzzResponse> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        headers,
        text: rest.join('\r\n\r\n'),
        durationMs: performance.now() - started,
      });
    };
    const timer = setTimeout(finish, 3_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One answer is enough: a complete head with a body of the announced length.
      const text = Buffer.concat(chunks).toString('utf8');
      const length = /\r\ncontent-length: (\d+)/i.exec(text);
      const split = text.indexOf('\r\n\r\n');
      if (split >= 0 && length && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1])) finish();
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.write(bytes);
  });
}
