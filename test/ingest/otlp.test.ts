import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import anyTest from 'ava';
import { OTLPTraceExporter as HttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { OTLP_BODY_LIMIT_BYTES } from '../../app/otlp/routes.ts';
import { createTenant, type Tenant } from '../analytics/support.ts';
import { withTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKey, insertAgentOf, storedUsage } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

let server: Server | undefined;
/** The traces URL of the file's app, listening on loopback (started by the first test that needs it). */
async function tracesUrlOf(t: { context: { t: TestApp } }): Promise<string> {
  if (!server) {
    server = t.context.t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/otlp/v1/traces`;
}
test.after.always(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

type Setup = { tenant: Tenant; key: string; agentId: string };
async function tenantWithKey(t: { context: { t: TestApp } }, label: string): Promise<Setup> {
  const tenant = await createTenant(t.context.t.db.pool, label);
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  return { tenant, key, agentId: await insertAgentOf(t.context.t.db.pool, tenant.organizationId) };
}

/** A tracer whose spans go to `exporter` (and are kept in memory for resending), with `resource` attributes. */
function tracing(exporter: SpanExporter, resource: Record<string, string> = {}) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'outside-agent', ...resource }),
    spanProcessors: [new SimpleSpanProcessor(exporter), new SimpleSpanProcessor(memory)],
  });
  return { tracer: provider.getTracer('usage-test'), provider, memory };
}

const resend = (exporter: SpanExporter, spans: ReadableSpan[]) =>
  new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));

const START = new Date('2026-05-03T09:00:00.000Z');
const END = new Date('2026-05-03T09:00:01.500Z');

test('spans exported by the OpenTelemetry SDK as protobuf become usage rows, once per (traceId, spanId)', async (t) => {
  const { tenant, key, agentId } = await tenantWithKey(t, 'otlp-protobuf');
  const exporter = new ProtobufExporter({ url: await tracesUrlOf(t), headers: { authorization: `Bearer ${key}` } });
  const { tracer, provider, memory } = tracing(exporter, { 'agents.usage.source': 'byok' });
  tracer
    .startSpan('chat gpt-4o', {
      startTime: START,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 300,
        'gen_ai.usage.cache_read.input_tokens': 200,
        'gen_ai.agent.id': agentId,
      },
    })
    .end(END);
  tracer.startSpan('GET /search', { startTime: START }).end(END);
  await provider.forceFlush();
  const rows = await storedUsage(t.context.t.db.pool, tenant.organizationId);
  t.deepEqual(rows, [
    {
      agentId,
      modelId: 'gpt-4o-2024-08-06',
      actionType: 'user_interaction',
      source: 'byok',
      inputTokens: 1000,
      outputTokens: 300,
      cacheReadTokens: 200,
      costUsd: 0,
      latencyMs: 1500,
      createdAt: END.toISOString(),
    },
  ]);
  // The SDK retries exports: the same spans again change nothing.
  t.is(memory.getFinishedSpans().length, 2);
  t.is((await resend(exporter, memory.getFinishedSpans())).code, 0);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 1);
  await provider.shutdown();
});

test('spans exported as OTLP/JSON map the request model, the action and the defaults', async (t) => {
  const { tenant, key } = await tenantWithKey(t, 'otlp-json');
  const exporter = new HttpJsonExporter({ url: await tracesUrlOf(t), headers: { authorization: `Bearer ${key}` } });
  const { tracer, provider, memory } = tracing(exporter);
  tracer
    .startSpan('embeddings', {
      startTime: START,
      attributes: {
        'gen_ai.request.model': 'text-embedding-3-small',
        'gen_ai.usage.input_tokens': 800,
        'agents.usage.action': 'rag_query_embedding',
        'gen_ai.agent.id': '01900000-0000-7000-8000-000000000501',
      },
    })
    .end(END);
  await provider.forceFlush();
  t.deepEqual(await storedUsage(t.context.t.db.pool, tenant.organizationId), [
    {
      agentId: null,
      modelId: 'text-embedding-3-small',
      actionType: 'rag_query_embedding',
      source: 'system',
      inputTokens: 800,
      outputTokens: 0,
      cacheReadTokens: 0,
      costUsd: 0,
      latencyMs: 1500,
      createdAt: END.toISOString(),
    },
  ]);
  await resend(exporter, memory.getFinishedSpans());
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 1);
  await provider.shutdown();
});

/** Finished spans of a scratch tracer: one good usage span and one without a model. */
function sampleSpans(): ReadableSpan[] {
  const { tracer, memory } = tracing(new InMemorySpanExporter());
  tracer.startSpan('good', { startTime: START, attributes: { 'gen_ai.request.model': 'm', 'gen_ai.usage.output_tokens': 5 } }).end(END);
  tracer.startSpan('no model', { startTime: START, attributes: { 'gen_ai.usage.output_tokens': 5 } }).end(END);
  tracer
    .startSpan('bad source', {
      startTime: START,
      attributes: { 'gen_ai.request.model': 'm', 'gen_ai.usage.input_tokens': 1, 'agents.usage.source': 'mine' },
    })
    .end(END);
  return memory.getFinishedSpans();
}

test('rejected usage spans are counted in partialSuccess, answered in the request encoding', async (t) => {
  const { tenant, key } = await tenantWithKey(t, 'otlp-partial');
  const spans = sampleSpans();
  const json = await t.context.t
    .http()
    .post('/api/otlp/v1/traces')
    .set('authorization', `Bearer ${key}`)
    .set('content-type', 'application/json')
    .send(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString('utf8'))
    .expect(200);
  t.is(json.body.partialSuccess.rejectedSpans, 2);
  t.regex(json.body.partialSuccess.errorMessage, /2 usage span\(s\) rejected; first: gen_ai\.response\.model or gen_ai\.request\.model/);

  const protobuf = await t.context.t
    .http()
    .post('/api/otlp/v1/traces')
    .set('authorization', `Bearer ${key}`)
    .set('content-type', 'application/x-protobuf')
    .set('content-encoding', 'gzip')
    .send(gzipSync(ProtobufTraceSerializer.serializeRequest(spans)!))
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    })
    .expect(200);
  t.is(protobuf.headers['content-type'], 'application/x-protobuf');
  const answer = ProtobufTraceSerializer.deserializeResponse(protobuf.body as Buffer);
  t.is(Number(answer.partialSuccess?.rejectedSpans), 2);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 1, 'the good span once, whatever the encoding');
});

test('bodies over the limit are 413, garbage is 400, other types 415, and only an API key is accepted', async (t) => {
  const { tenant, key } = await tenantWithKey(t, 'otlp-refusals');
  const post = (token: string, type: string, body: Buffer | string) =>
    t.context.t.http().post('/api/otlp/v1/traces').set('authorization', `Bearer ${token}`).set('content-type', type).send(body);
  t.is((await post(key, 'application/x-protobuf', Buffer.alloc(OTLP_BODY_LIMIT_BYTES + 1))).status, 413);
  t.is((await post(key, 'application/x-protobuf', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1]))).status, 400);
  t.is((await post(key, 'application/json', '{"resourceSpans": 3}')).status, 400);
  t.is((await post(key, 'application/json', '{not json')).status, 400);
  t.is((await post(key, 'text/plain', 'hello')).status, 415);
  t.is((await post(tenant.ownerToken, 'application/json', '{}')).status, 401);
  t.deepEqual((await post(key, 'application/json', '{}').expect(200)).body, { partialSuccess: { rejectedSpans: 0, errorMessage: '' } });
});
