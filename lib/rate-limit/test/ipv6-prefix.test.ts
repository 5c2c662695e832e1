import test from 'ava';
import Koa from 'koa';
import request from 'supertest';
import { ipKey } from '../src/ip-key.ts';
import { rateLimit, type RateLimitOptions } from '../src/koa/index.ts';
import { MemoryStore } from '../src/memory-store.ts';
import type { Store } from '../src/store.ts';
import { FakeClock } from './helpers/fake-clock.ts';

/** A Koa app behind one trusted proxy (the client is the X-Forwarded-For entry) with one limited route. */
function appWith(options: Partial<RateLimitOptions> = {}, store: Store = new MemoryStore({ sweepIntervalMs: 0 })) {
  const app = new Koa({ proxy: true, maxIpsCount: 1 });
  app.use(rateLimit({ windowMs: '15m', limit: 10, identifierType: 'ip', now: new FakeClock(0).now, store, ...options }));
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const agent = request(app.callback());
  return (from: string) => agent.get('/login').set('x-forwarded-for', from);
}

/** Statuses of `addresses.length` requests, one from each address in turn. */
async function statusesFrom(send: (from: string) => request.Test, addresses: string[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const address of addresses) statuses.push((await send(address)).status);
  return statuses;
}

/** Fourteen addresses of 2001:db8:1:2::/64, each another host, as a client holding one /64 rotates them. */
const rotatingInOne64 = Array.from({ length: 14 }, (_, i) => `2001:db8:1:2:${((i * 7919) % 0x10000).toString(16)}:${i + 1}::${i + 3}`);

test('fourteen requests from addresses rotating inside one /64 share one window: 429 after ten', async (t) => {
  const send = appWith();
  t.deepEqual(await statusesFrom(send, rotatingInOne64), [...Array(10).fill(200), 429, 429, 429, 429]);
});

test('the whole /56 shares the window, and an address of another /56 keeps its own', async (t) => {
  const send = appWith();
  // 2001:db8:1:00xx::/64 for xx in 0..ff is one /56; vary the fourth group's low byte.
  const sameFiftySix = Array.from({ length: 10 }, (_, i) => `2001:db8:1:${(i * 25).toString(16)}::1`);
  t.deepEqual(await statusesFrom(send, sameFiftySix), Array(10).fill(200));
  t.is((await send('2001:db8:1:ff:ffff:ffff:ffff:ffff')).status, 429);
  t.is((await send('2001:db8:1:100::1')).status, 200);
  t.is((await send('2001:db8:2::1')).status, 200);
});

test('an IPv4-mapped IPv6 address counts in the window of its IPv4 address, in both its forms', async (t) => {
  const send = appWith({ limit: 3 });
  t.is((await send('192.0.2.7')).status, 200);
  t.is((await send('::ffff:192.0.2.7')).status, 200);
  t.is((await send('::ffff:c000:207')).status, 200);
  t.is((await send('192.0.2.7')).status, 429);
  t.is((await send('192.0.2.8')).status, 200);
});

test('ipv6Subnet sets the prefix, and false counts every full address apart', async (t) => {
  const by64 = appWith({ limit: 1, ipv6Subnet: 64 });
  t.is((await by64('2001:db8:1:2::1')).status, 200);
  t.is((await by64('2001:db8:1:2::2')).status, 429);
  t.is((await by64('2001:db8:1:3::1')).status, 200);
  const off = appWith({ limit: 1, ipv6Subnet: false });
  t.is((await off('2001:db8:1:2::1')).status, 200);
  t.is((await off('2001:db8:1:2::2')).status, 200);
  // Mapped addresses are IPv4 clients whatever the prefix.
  t.is((await off('::ffff:192.0.2.9')).status, 200);
  t.is((await off('192.0.2.9')).status, 429);
});

test('userId without a user counts the address by the same prefix', async (t) => {
  const send = appWith({ identifierType: 'userId', limit: 2 });
  t.deepEqual(await statusesFrom(send, ['2001:db8:9:1::1', '2001:db8:9:2::1', '2001:db8:9:3::1']), [200, 200, 429]);
});

test('the key of an IPv6 client names its network and prefix, over any store', async (t) => {
  const keys: string[] = [];
  const memory = new MemoryStore({ sweepIntervalMs: 0 });
  // Not a MemoryStore: the middleware builds the whole key and awaits the store.
  const recording: Store = {
    hit: (key, windowMs, limit, nowMs, cost) => {
      keys.push(key);
      return memory.hit(key, windowMs, limit, nowMs, cost);
    },
  };
  const send = appWith({ endpoint: 'POST /login', ipv6Subnet: 56 }, recording);
  await send('2001:DB8:1:2:3:4:5:6');
  await send('203.0.113.4');
  t.deepEqual(keys.slice(0, 2), ['rl:POST /login:ip:2001:db8:1::/56', 'rl:POST /login:ip:203.0.113.4']);
});

test('ipKey masks to the prefix in RFC 5952 form, maps IPv4 and leaves anything else alone', (t) => {
  t.is(ipKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1::/56');
  t.is(ipKey('2001:db8:1:2ff:3:4:5:6'), '2001:db8:1:200::/56');
  t.is(ipKey('2001:db8:1:2ff:3:4:5:6', 64), '2001:db8:1:2ff::/64');
  t.is(ipKey('2001:db8:1:2ff:3:4:5:6', 128), '2001:db8:1:2ff:3:4:5:6/128');
  t.is(ipKey('2001:db8:abcd:d2ff::1', 50), '2001:db8:abcd:c000::/50');
  t.is(ipKey('fe80::1%eth0', 64), 'fe80::/64');
  t.is(ipKey('::1'), '::/56');
  t.is(ipKey('1:0:0:1:0:0:0:1', 128), '1:0:0:1::1/128');
  t.is(ipKey('1:0:0:1:1:0:0:1', 128), '1::1:1:0:0:1/128');
  t.is(ipKey('::ffff:198.51.100.20'), '198.51.100.20');
  t.is(ipKey('::FFFF:C633:6414', false), '198.51.100.20');
  t.is(ipKey('2001:db8::1', false), '2001:db8::1');
  t.is(ipKey('203.0.113.9'), '203.0.113.9');
  t.is(ipKey('not:an:address'), 'not:an:address');
});

test('an ipv6Subnet outside 32-128 or not an integer throws at declaration time, naming the value', (t) => {
  for (const ipv6Subnet of [31, 129, 56.5, '56', true, 0]) {
    t.throws(() => rateLimit({ windowMs: '1m', limit: 1, identifierType: 'ip', ipv6Subnet: ipv6Subnet as never }), {
      instanceOf: TypeError,
      message: new RegExp(`ipv6Subnet ${JSON.stringify(ipv6Subnet)?.replace(/[.]/g, '\\.')}`),
    });
  }
});
