import { createServer, type AddressInfo } from 'node:net';
import anyTest from 'ava';
import { createTenant } from '../analytics/support.ts';
import { withTestApp } from '../helpers/app.ts';
import { chatConfig, sendChat, serve, userMessage, type T } from './support.ts';

// NODE_ENV=test: loopback is a private address like any other; limits on.
const test = withTestApp(anyTest, { rateLimits: true });
const ORG_KEY = 'sk-organization-own-key-4321';

const saveKey = (t: T, token: string, baseUrl?: string) =>
  t.context.t
    .http()
    .put('/api/ai/provider-key')
    .set('authorization', `Bearer ${token}`)
    .send({ apiKey: ORG_KEY, ...(baseUrl === undefined ? {} : { baseUrl }) });

test('saving a baseUrl answers alike for a name that does not resolve and one that resolves to a private address', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'dns-oracle');
  // `localhost` resolves to loopback, which the policy refuses outside development; `.invalid` never resolves.
  const privateName = await saveKey(t, tenant.ownerToken, 'https://localhost:9/v1');
  const unresolvable = await saveKey(t, tenant.ownerToken, 'https://no-such-host.invalid/v1');
  t.deepEqual([privateName.status, privateName.body], [unresolvable.status, unresolvable.body]);
  t.is(privateName.status, 204);
  // What the URL alone shows is still refused at save: a private IP literal, a metadata name.
  for (const baseUrl of ['https://10.0.0.7/v1', 'https://metadata.google.internal/v1']) {
    const refused = await saveKey(t, tenant.ownerToken, baseUrl);
    t.is(refused.status, 400, baseUrl);
    t.deepEqual(refused.body.errors[0].path, ['baseUrl']);
  }
});

test('a saved name that resolves to a private address is refused at call time, never connected to, and answered like one that does not resolve', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'dns-call-time');
  const base = await serve(t, chatConfig({}, { nodeEnv: 'test' }));
  // A listener on loopback that counts connections: the refused turn must never open one.
  const connections: number[] = [];
  const listener = createServer((socket) => {
    connections.push(1);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  t.teardown(() => listener.close());
  const port = (listener.address() as AddressInfo).port;
  const agent = await t.context.t
    .http()
    .post('/api/ai/agents')
    .set('authorization', `Bearer ${tenant.ownerToken}`)
    .send({ name: 'Call-time check' })
    .expect(201);
  const errorsWith = async (baseUrl: string, chatId: string) => {
    await saveKey(t, tenant.ownerToken, baseUrl).expect(204);
    const { chunks } = await sendChat(base, `Bearer ${tenant.ownerToken}`, chatId, [userMessage('hello')], { agent: agent.body.id });
    t.notRegex(JSON.stringify(chunks), new RegExp(ORG_KEY));
    return chunks.filter((chunk) => chunk.type === 'error');
  };
  const privateName = await errorsWith(`https://localhost:${port}/v1`, 'call-time-private');
  const unresolvable = await errorsWith('https://no-such-host.invalid/v1', 'call-time-unresolvable');
  t.deepEqual(privateName, [{ type: 'error', errorText: 'The model provider could not be reached.' }]);
  t.deepEqual(unresolvable, privateName);
  t.is(connections.length, 0);
});

test('PUT /api/ai/provider-key is limited to 10 a minute per user: the 11th is a 429, another user still saves', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'provider-key-limit');
  const other = await createTenant(t.context.t.db.pool, 'provider-key-other');
  const statuses: number[] = [];
  for (let i = 0; i < 11; i++) statuses.push((await saveKey(t, tenant.ownerToken, `https://name-${i}.invalid/v1`)).status);
  t.deepEqual(statuses, [...Array(10).fill(204), 429]);
  t.is((await saveKey(t, other.ownerToken)).status, 204);
});
