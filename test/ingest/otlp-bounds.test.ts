import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import anyTest from 'ava';
import { traceService } from '../helpers/otlp-proto.ts';
import { ALL_RATE_LIMITS } from '../../app/rate-limits.ts';
import { OTLP_MAX_JSON_VALUES, OTLP_MAX_PROTOBUF_ELEMENTS, OTLP_MAX_SPANS } from '../../app/otlp/request-body.ts';
import { OTLP_BODY_LIMIT_BYTES } from '../../app/otlp/routes.ts';
import { createTenant } from '../analytics/support.ts';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { emptySpansRequest, otlpJsonOfEmptySpans, protobufField } from '../../fuzz/bombs.ts';
import { createApiKey } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

let server: Server | undefined;
let listening: Promise<string> | undefined;
/** The base URL of the file's app on loopback: health and OTLP go through real sockets. */
function baseOf(t: { context: { t: TestApp } }): Promise<string> {
  listening ??= new Promise((resolve) => {
    server = t.context.t.app.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`));
  });
  return listening;
}
test.after.always(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const keyOf = once(async (t: { context: { t: TestApp } }) => {
  const tenant = await createTenant(t.context.t.db.pool, 'otlp-bounds');
  return (await createApiKey(t.context.t, tenant.ownerToken)).key;
});
function once<A, R>(build: (a: A) => Promise<R>): (a: A) => Promise<R> {
  let made: Promise<R> | undefined;
  return (a) => (made ??= build(a));
}

async function post(t: { context: { t: TestApp } }, type: string, payload: Buffer, gzip: boolean) {
  const response = await fetch(`${await baseOf(t)}/api/otlp/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await keyOf(t)}`, 'content-type': type, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    body: payload,
  });
  // A protobuf request's 200 is an ExportTraceServiceResponse in protobuf; errors are JSON.
  const json = response.headers.get('content-type')?.startsWith('application/json');
  const body = json
    ? await response.json()
    : traceService()
        .response.decode(new Uint8Array(await response.arrayBuffer()))
        .toJSON();
  return { status: response.status, body: body as { message: string; partialSuccess?: unknown } };
}

/** Sends `bomb` while polling /api/health back to back until it is answered; returns the answer and the health statuses. */
async function sendWithHealthPolled(t: { context: { t: TestApp } }, send: () => Promise<{ status: number; body: { message: string } }>) {
  const base = await baseOf(t);
  await fetch(`${base}/api/health`);
  let answered = false;
  const health: number[] = [];
  const polling = (async () => {
    while (!answered) {
      const response = await fetch(`${base}/api/health`);
      await response.arrayBuffer();
      health.push(response.status);
    }
  })();
  const answer = await send().finally(() => (answered = true));
  await polling;
  return { answer, health };
}

test.serial('the 8 KB protobuf bomb (4,194,296 empty spans) is a 413 at 4 MiB inflated; health answers throughout', async (t) => {
  const bomb = gzipSync(emptySpansRequest(4_194_296), { level: 9 });
  t.true(bomb.length < 9_000, `the bomb is ${bomb.length} bytes`);
  const { answer, health } = await sendWithHealthPolled(t, () => post(t, 'application/x-protobuf', bomb, true));
  t.is(answer.status, 413);
  t.regex(answer.body.message, new RegExp(`at most ${OTLP_BODY_LIMIT_BYTES} bytes`));
  t.true(health.length > 0 && health.every((status) => status === 200));
});

test.serial(
  'a bomb that fits in 4 MiB (2,000,000 empty spans) is a 400 naming the span limit, counted before any span is built',
  async (t) => {
    const bomb = gzipSync(emptySpansRequest(2_000_000), { level: 9 });
    const { answer, health } = await sendWithHealthPolled(t, () => post(t, 'application/x-protobuf', bomb, true));
    t.is(answer.status, 400);
    t.is(answer.body.message, `Too many spans: at most ${OTLP_MAX_SPANS} per request; export smaller batches`);
    t.true(health.every((status) => status === 200));
  },
);

test('exactly 10,000 spans are accepted and 10,001 refused, in protobuf and in JSON', async (t) => {
  t.deepEqual(await post(t, 'application/x-protobuf', emptySpansRequest(OTLP_MAX_SPANS), false), {
    status: 200,
    body: { partialSuccess: {} },
  });
  t.is((await post(t, 'application/x-protobuf', emptySpansRequest(OTLP_MAX_SPANS + 1), false)).status, 400);
  const accepted = await post(t, 'application/json', otlpJsonOfEmptySpans(OTLP_MAX_SPANS), false);
  t.deepEqual(accepted, { status: 200, body: { partialSuccess: { rejectedSpans: 0, errorMessage: '' } } });
  const refused = await post(t, 'application/json', otlpJsonOfEmptySpans(OTLP_MAX_SPANS + 1), false);
  t.is(refused.status, 400);
  t.regex(refused.body.message, /Too many spans/);
});

test.serial('the JSON bomb ({} x 2.8M, 8 KB gzipped) is a 413, and one that fits is a 400 before JSON.parse', async (t) => {
  const huge = gzipSync(otlpJsonOfEmptySpans(2_800_000), { level: 9 });
  const { answer, health } = await sendWithHealthPolled(t, () => post(t, 'application/json', huge, true));
  t.is(answer.status, 413);
  t.true(health.every((status) => status === 200));
  const fits = gzipSync(otlpJsonOfEmptySpans(1_300_000), { level: 9 });
  t.is((await post(t, 'application/json', fits, true)).status, 400);
  // Values that are not spans: a million empty attributes of one span, and nesting 1 MiB deep.
  const attributes = Buffer.from(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[${'{},'.repeat(1_000_000)}{}]}]}]}]}`);
  const manyValues = await post(t, 'application/json', gzipSync(attributes), true);
  t.is(manyValues.status, 400);
  t.is(
    manyValues.body.message,
    `Too many JSON values: at most ${OTLP_MAX_JSON_VALUES} per request; export smaller batches or use protobuf`,
  );
  const nested = await post(t, 'application/json', gzipSync('['.repeat(524_284) + ']'.repeat(524_284)), true);
  t.is(nested.status, 400);
});

test('protobuf attributes count toward the element limit; nested values are jumped over unread', async (t) => {
  // One span with a million empty attributes (field 9), 2 bytes each.
  const attributes = Buffer.alloc(2_000_000);
  for (let i = 0; i < attributes.length; i += 2) attributes[i] = 0x4a;
  const request = protobufField(1, protobufField(2, protobufField(2, attributes)));
  const refused = await post(t, 'application/x-protobuf', gzipSync(request), true);
  t.is(refused.status, 400);
  t.regex(refused.body.message, new RegExp(`at most ${OTLP_MAX_PROTOBUF_ELEMENTS} spans and attributes`));
  // One attribute whose array value holds a million empty values: one element, accepted.
  const values = Buffer.alloc(2_000_000);
  for (let i = 0; i < values.length; i += 2) values[i] = 0x0a;
  const nested = protobufField(1, protobufField(2, protobufField(2, protobufField(9, protobufField(2, protobufField(5, values))))));
  t.is((await post(t, 'application/x-protobuf', gzipSync(nested), true)).status, 200);
});

test('the route is limited to 600 requests a minute per API key, like the events route', (t) => {
  const otlp = ALL_RATE_LIMITS.find((row) => row.endpoint === 'POST /api/otlp/v1/traces');
  const events = ALL_RATE_LIMITS.find((row) => row.endpoint === 'POST /api/ai/org-usage/events');
  t.like(otlp, { limit: 600, windowMs: '1m', identifierType: 'apiKey', policyName: 'otlp-traces' });
  t.like(events, { limit: otlp!.limit, windowMs: otlp!.windowMs, identifierType: otlp!.identifierType });
});
