/** One request of the fuzzer: what is sent, by whom, and why (its `kind`). */
export type FuzzRequest = {
  /** The operation it targets (`GET /api/ai/agents/{agentId}`), or `raw HTTP` for malformed bytes. */
  operation: string;
  kind: string;
  principal: string;
  method: string;
  /** Path and query, already percent-encoded as sent. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Bytes sent as they are over a fresh socket (malformed HTTP); method/target/headers are then informative. */
  raw?: Buffer;
};

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A shell line that sends the same request to `$BASE` (for example http://localhost:3000 after
 * `npm start`), with `$TOKEN_<principal>` for the caller's access token; raw bytes go through
 * printf and a one-line Node socket.
 */
export function curlOf(request: FuzzRequest): string {
  if (request.raw) {
    const pipe = `const u=new URL(process.env.BASE);const s=require('net').connect(u.port||80,u.hostname);process.stdin.pipe(s);s.pipe(process.stdout)`;
    return `printf '%s' ${quote(request.raw.toString('base64'))} | base64 -d | node -e ${quote(pipe)}`;
  }
  const parts = ['curl', '-sS', '-i', '-X', request.method, '--path-as-is', `"$BASE"${quote(request.target)}`];
  for (const [name, value] of Object.entries(request.headers)) {
    const shown =
      name === 'authorization' && value.startsWith('Bearer ') && request.principal !== 'anonymous'
        ? `Bearer $TOKEN_${request.principal.replace(/\W+/g, '_')}`
        : value;
    parts.push('-H', name === 'authorization' && shown !== value ? `"${name}: ${shown}"` : quote(`${name}: ${shown}`));
  }
  if (request.body === undefined) return parts.join(' ');
  const printable = /^[\x20-\x7e\n]*$/.test(request.body.toString('latin1')) && request.body.length <= 2_000;
  if (printable) return [...parts, '--data-binary', quote(request.body.toString('latin1'))].join(' ');
  return `printf '%s' ${quote(request.body.toString('base64'))} | base64 -d | ${[...parts, '--data-binary', '@-'].join(' ')}`;
}
