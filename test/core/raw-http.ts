import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

/** Listens on an OS-chosen port; closes with the test. */
export async function listening(app: { listen(port: number): Server }, teardown: (fn: () => void) => void) {
  const server = app.listen(0);
  await once(server, 'listening');
  teardown(() => server.close());
  return (server.address() as AddressInfo).port;
}

/** Sends `bytes` as they are over a fresh connection and answers what came back until it closed (or 2 s). */
export async function rawExchange(port: number, bytes: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  socket.write(bytes);
  // Waiting on the server as a peer on a socket: its close, bounded for a server that keeps the connection.
  await Promise.race([once(socket, 'close'), new Promise((resolve) => setTimeout(resolve, 2_000))]);
  socket.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  const [head = '', ...rest] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body: rest.join('\r\n\r\n') };
}
