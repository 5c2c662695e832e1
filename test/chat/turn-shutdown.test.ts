import anyTest from 'ava';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { withTestApp, TEST_CREDENTIALS_KEY, TEST_JWT_SECRET } from '../helpers/app.ts';
import { bearer, chatConfig, chatPath, provider, textOf } from './support.ts';
import { hasText, parseStream, post, readUntil, textOfChunks, turnOutcomes } from './turn-support.ts';

const test = withTestApp(anyTest, { app: { config: chatConfig() } });
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test('SIGTERM mid-turn: the instance lets the turn run for SHUTDOWN_GRACE_MS, then stops and saves it; another instance reads the partial answer', async (t) => {
  t.timeout(60_000);
  const peer = await provider(t, () => ({ kind: 'drip', text: 'Partial', everyMs: 10, forever: true }));
  const port = await freePort();
  // A real instance of the service (app/server.ts) over this file's database.
  const server = spawn(process.execPath, ['--conditions=agents-source', 'app/server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'development',
      PORT: String(port),
      DATABASE_URL: t.context.t.db.url,
      JWT_SECRET: TEST_JWT_SECRET,
      CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      SEED_DEMO: 'false',
      OUTBOX_WORKER: 'false',
      AI_GATEWAY_URL: peer.url,
      AI_GATEWAY_API_KEY: 'sk-platform-secret-key-0001',
      SHUTDOWN_GRACE_MS: '500',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (server.exitCode === null) server.kill('SIGKILL');
    await exited;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('"msg":"listening"')) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    void exited.then(() => reject(new Error(`the server exited: ${output}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const auth = await bearer(t);

  const turn = await readUntil(await post(base, auth, 'restart', 'hello', 'm-restart'), hasText('Partial'));
  const signalledAt = Date.now();
  server.kill('SIGTERM');
  const { chunks, done } = parseStream(await turn.whole);
  const stoppedAfter = Date.now() - signalledAt;
  t.is(await exited, 0, output);
  t.log(`stream ended ${stoppedAfter} ms after SIGTERM; the process exited ${Date.now() - signalledAt} ms after it`);

  t.true(done);
  t.is(textOfChunks(chunks), 'Partial');
  t.like(chunks.at(-1), { type: 'finish' });
  t.deepEqual(await turnOutcomes(t, 'restart'), ['shutdown']);
  // Another instance (this process's app, same database) has the saved partial answer.
  const conversation = await t.context.t
    .http()
    .get(`${chatPath().replace('/chat', '')}/conversations/restart`)
    .set('authorization', auth)
    .expect(200);
  const messages = conversation.body.messages as { role: string; parts: { type: string; text?: string }[] }[];
  t.deepEqual(
    messages.map((message) => message.role),
    ['user', 'assistant'],
  );
  t.is(textOf(messages[1] as never), 'Partial');
});
