import test from 'ava';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'slonik';
import { z } from 'zod';
import { uploadBody } from '../../fuzz/document-bombs.ts';
import { AGENTS, DEMO_PASSWORD, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { readMigrations } from '../../sql/migrate.ts';
import { textPdf } from '../knowledge/pdf-fixtures.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { TEST_CREDENTIALS_KEY, TEST_JWT_SECRET } from '../helpers/app.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** A port nobody listens on right now (the server under test takes it by number). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test('NODE_ENV=production npm start runs the compiled build with plain node: migrations, the catalog seed and the document reader are found from dist', async (t) => {
  t.timeout(180_000);
  // The build under test, minus its type check (npm run typecheck does that) to keep this cheap.
  await run('npm', ['run', 'build', '--', '--no-check'], { cwd: ROOT });

  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  const port = await freePort();
  const server = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: db.url,
      JWT_SECRET: TEST_JWT_SECRET,
      CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const stopped = new Promise((resolve) => server.once('exit', resolve));
  t.teardown(async () => {
    server.kill('SIGTERM');
    await stopped;
  });

  // pino's `listening` line carries the pid of the process that serves.
  const listening = await new Promise<{ pid: number }>((resolve, reject) => {
    let buffered = '';
    server.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (const line of buffered.split('\n')) {
        if (line.startsWith('{') && line.includes('"msg":"listening"')) resolve(JSON.parse(line) as { pid: number });
      }
    });
    server.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${buffered}${output}`)));
  });

  // The serving process is node running the compiled entry: no TypeScript loader, no source condition.
  const argv = readFileSync(`/proc/${listening.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  t.deepEqual(argv.slice(1), ['dist/app/server.js']);

  const health = await fetch(`http://127.0.0.1:${port}/api/health`);
  t.is(health.status, 200);
  t.deepEqual(await health.json(), { status: 'ok' });

  // Documents are read in a process forked from the reader's compiled entry beside its module.
  await seedDemo(db.pool);
  const login = await fetch(`http://127.0.0.1:${port}/api/identity/auth/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: USERS.owner.email, password: DEMO_PASSWORD }),
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  for (const upload of [
    { name: 'notes.md', type: 'text/markdown', body: Buffer.from('# Notes\n\nThe compiled reader reads this.') },
    { name: 'notes.pdf', type: 'application/pdf', body: textPdf([['The compiled reader reads this PDF.']]) },
  ]) {
    const { contentType, body } = uploadBody({ ...upload, label: upload.name });
    const added = await fetch(`http://127.0.0.1:${port}/api/ai/agents/${AGENTS.support.id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': contentType },
      body,
    });
    t.is(added.status, 201, `${upload.name}: ${await added.clone().text()}`);
    t.like(await added.json(), { name: upload.name, chunkCount: 1 });
  }

  const applied = await db.pool.anyFirst(sql.type(z.object({ name: z.string() }))`SELECT name FROM schema_migrations ORDER BY name`);
  t.deepEqual(
    applied,
    (await readMigrations()).map((migration) => migration.name),
  );
  const catalog = JSON.parse(readFileSync(new URL('../../seeds/mcp-catalog.json', import.meta.url), 'utf8')) as unknown[];
  t.is(
    await db.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM available_mcps`),
    catalog.length,
  );
});
