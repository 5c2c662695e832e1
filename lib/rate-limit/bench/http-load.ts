// A closed-loop HTTP/1.1 load generator over keep-alive sockets whose target can be switched at any moment.
// Why not autocannon: a run of autocannon opens its own connections and lasts whole seconds, while this 2-vCPU VM
// changes speed by 2-3x every half second or so (server CPU per request measured at 28-73 us within 10 s). Comparing
// two routes needs them measured in alternating slices of a few tens of milliseconds on connections that stay
// open. This client is also lighter: in a probe it used 24% of a core at ~27,000 responses/s (~9 us each), where
// autocannon used 63-69% at ~26,000 (~25 us), so it never starves the server.
import net from 'node:net';

interface Connection {
  readonly socket: net.Socket;
  readonly port: string;
  /** The target of the request in flight, or undefined when the socket is idle. */
  inFlight: string | undefined;
}

/** Counts 200 responses per target URL; any other status or a malformed response fails the run. */
export class SwitchingLoad {
  readonly #connections = new Map<string, Connection[]>();
  readonly #requests = new Map<string, { readonly port: string; readonly bytes: Buffer }>();
  readonly #completed = new Map<string, number>();
  #target: string;
  #failure: Error | undefined;

  /**
   * Opens `connections` sockets to each port among `urls` (all on 127.0.0.1); the sockets of the current
   * target's port keep one `GET` each in flight, the others stay idle. The first URL is the first target.
   */
  static async open(urls: readonly string[], connections = 16): Promise<SwitchingLoad> {
    const load = new SwitchingLoad(urls);
    const ports = [...new Set([...load.#requests.values()].map((request) => request.port))];
    await Promise.all(ports.flatMap((port) => Array.from({ length: connections }, () => load.#connect(port))));
    load.target = load.#target;
    return load;
  }

  private constructor(urls: readonly string[]) {
    for (const url of urls) {
      const { port, pathname } = new URL(url);
      this.#requests.set(url, { port, bytes: Buffer.from(`GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 'latin1') });
      this.#completed.set(url, 0);
      this.#connections.set(port, []);
    }
    this.#target = urls[0] as string;
  }

  /** The URL every next request goes to. Requests already sent still count for their own target. */
  set target(url: string) {
    const request = this.#requests.get(url);
    if (request === undefined) throw new Error(`unknown target ${url}`);
    this.#target = url;
    for (const connection of this.#connections.get(request.port) as Connection[]) {
      if (connection.inFlight === undefined) this.#send(connection);
    }
  }

  /** 200 responses received so far for `url`; throws the first failure seen. */
  completed(url: string): number {
    if (this.#failure !== undefined) throw this.#failure;
    return this.#completed.get(url) ?? 0;
  }

  close(): void {
    for (const connections of this.#connections.values()) for (const { socket } of connections) socket.destroy();
  }

  /** Sends the current target's request if it lives on this connection's port; otherwise the socket idles. */
  #send(connection: Connection): void {
    const request = this.#requests.get(this.#target) as { port: string; bytes: Buffer };
    if (connection.port !== request.port) {
      connection.inFlight = undefined;
      return;
    }
    connection.inFlight = this.#target;
    connection.socket.write(request.bytes);
  }

  #connect(port: string): Promise<void> {
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.setNoDelay(true);
    const connection: Connection = { socket, port, inFlight: undefined };
    (this.#connections.get(port) as Connection[]).push(connection);
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.toString('latin1', 0, headEnd);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
      if (!head.startsWith('HTTP/1.1 200 ') || length === undefined || connection.inFlight === undefined) {
        this.#failure ??= new Error(`${connection.inFlight ?? port}: unexpected response ${JSON.stringify(head.slice(0, 120))}`);
        socket.destroy();
        return;
      }
      const end = headEnd + 4 + Number(length);
      if (buffered.length < end) return;
      buffered = buffered.subarray(end);
      this.#completed.set(connection.inFlight, (this.#completed.get(connection.inFlight) as number) + 1);
      this.#send(connection);
    });
    socket.on('error', (error) => {
      this.#failure ??= error;
    });
    return new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
  }
}
