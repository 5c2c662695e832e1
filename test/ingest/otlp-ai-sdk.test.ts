import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import anyTest from 'ava';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { generateText, streamText } from 'ai';
import { createTenant, getUsage, price } from '../analytics/support.ts';
import { withTestApp } from '../helpers/app.ts';
import { startOpenAiPeer, type Reply } from '../helpers/openai-peer.ts';
import { usageEventOf } from '../../app/otlp/usage-mapping.ts';
import { createApiKey, storedUsage } from './support.ts';

const test = withTestApp(anyTest, { seed: false });

let server: Server | undefined;
test.after.always(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

const MODEL = 'scripted/ai-sdk-model';

/**
 * An AI SDK app as a customer writes it: `streamText` and `generateText` with
 * `experimental_telemetry` over an OpenAI-compatible model (the scripted peer), traced by the
 * OpenTelemetry JS SDK and exported as OTLP/protobuf to the service with an API key.
 */
test('the AI SDK telemetry of streamText and generateText, exported over OTLP, becomes one priced usage row per model call', async (t) => {
  const tenant = await createTenant(t.context.t.db.pool, 'otlp-ai-sdk');
  const { key } = await createApiKey(t.context.t, tenant.ownerToken);
  await price(t.context.t.db.pool, [{ modelId: MODEL, inputUsdPerMTok: 2, outputUsdPerMTok: 8, cacheReadUsdPerMTok: 0.5 }]);
  server = t.context.t.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server!.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/otlp/v1/traces`;

  const replies: Reply[] = [
    { kind: 'text', text: 'Streamed answer.', usage: { prompt: 1200, completion: 300, cached: 200 } },
    { kind: 'text', text: 'Generated answer.', usage: { prompt: 800, completion: 100 } },
  ];
  const peer = await startOpenAiPeer((_, index) => replies[index]!);
  t.teardown(() => peer.close());
  const exporter = new OTLPTraceExporter({ url, headers: { authorization: `Bearer ${key}` } });
  const memory = new InMemorySpanExporter();
  const tracing = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'customer-ai-sdk-app' }),
    spanProcessors: [new SimpleSpanProcessor(exporter), new SimpleSpanProcessor(memory)],
  });
  const telemetry = { isEnabled: true, functionId: 'support-answer', tracer: tracing.getTracer('ai') };
  const model = createOpenAICompatible({ name: 'scripted', baseURL: peer.url, apiKey: 'sk-customer', includeUsage: true }).chatModel(MODEL);

  const streamed = streamText({ model, prompt: 'Hello', experimental_telemetry: telemetry });
  t.is(await streamed.text, 'Streamed answer.');
  t.is((await streamed.usage).inputTokenDetails.cacheReadTokens, 200);
  const generated = await generateText({ model, prompt: 'Hello again', experimental_telemetry: telemetry });
  t.is(generated.text, 'Generated answer.');
  t.deepEqual(
    peer.requests.map((request) => request.body.stream === true),
    [true, false],
  );
  await tracing.forceFlush();

  // Each call is an operation span (ai.streamText, ai.generateText: ai.usage.* only) around one
  // model-call span (ai.streamText.doStream, ai.generateText.doGenerate: gen_ai.usage.* too).
  const spans = memory.getFinishedSpans();
  const byName = (name: string) => spans.find((span) => span.name === name)!;
  const doStream = byName('ai.streamText.doStream');
  t.like(doStream.attributes, {
    'gen_ai.request.model': MODEL,
    'gen_ai.response.model': MODEL,
    'gen_ai.usage.input_tokens': 1200,
    'gen_ai.usage.output_tokens': 300,
    'ai.usage.inputTokenDetails.cacheReadTokens': 200,
  });
  t.is(doStream.attributes['gen_ai.usage.cache_read.input_tokens'], undefined, 'the AI SDK reports cached tokens only as ai.usage.*');
  t.is(byName('ai.streamText').attributes['gen_ai.usage.input_tokens'], undefined);

  const rows = await storedUsage(t.context.t.db.pool, tenant.organizationId);
  const endOf = (span: ReadableSpan) => new Date(span.endTime[0] * 1000 + Math.floor(span.endTime[1] / 1e6)).toISOString();
  const row = { agentId: null, modelId: MODEL, actionType: 'user_interaction', source: 'system' };
  t.like(rows, [
    { ...row, inputTokens: 1000, cacheReadTokens: 200, outputTokens: 300, costUsd: 0.0045, createdAt: endOf(doStream) },
    {
      ...row,
      inputTokens: 800,
      cacheReadTokens: 0,
      outputTokens: 100,
      costUsd: 0.0024,
      createdAt: endOf(byName('ai.generateText.doGenerate')),
    },
  ]);
  t.is(rows.length, 2, 'one row per model call; the operation spans add none');

  // The analytics endpoints show them (a fresh organization: nothing cached yet).
  const window = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() };
  const { body } = await getUsage(t.context.t, tenant.ownerToken, 'model-efficiency', window).expect(200);
  t.like(body, [{ modelId: MODEL, executionsCount: 2, totalTokens: 2400, totalCostUsd: 0.0069 }]);
  const summary = await getUsage(t.context.t, tenant.ownerToken, 'summary', window).expect(200);
  t.like(summary.body, { executionsCount: 2, totalCostUsd: 0.0069 });

  // The exporter's retry of the same spans adds nothing.
  const again = await new Promise<{ code: number }>((resolve) => exporter.export(spans, resolve));
  t.is(again.code, 0);
  t.is((await storedUsage(t.context.t.db.pool, tenant.organizationId)).length, 2);
  await tracing.shutdown();
});

test("cached tokens: the GenAI convention's attribute first, then the AI SDK's two", (t) => {
  const span = (attributes: Record<string, number>) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    startTimeUnixNano: 1_780_000_000_000_000_000n,
    endTimeUnixNano: 1_780_000_001_000_000_000n,
    attributes: new Map<string, number | string>([
      ['gen_ai.request.model', MODEL],
      ['gen_ai.usage.input_tokens', 1000],
      ...Object.entries(attributes),
    ]),
    resourceAttributes: new Map(),
  });
  const cached = (attributes: Record<string, number>) => {
    const event = usageEventOf(span(attributes), '01900000-0000-7000-8000-000000000001', new Set());
    return 'reason' in event ? event.reason : [event.inputTokens, event.cacheReadTokens];
  };
  t.deepEqual(cached({}), [1000, 0]);
  t.deepEqual(cached({ 'ai.usage.cachedInputTokens': 300 }), [700, 300]);
  t.deepEqual(cached({ 'ai.usage.inputTokenDetails.cacheReadTokens': 200, 'ai.usage.cachedInputTokens': 300 }), [800, 200]);
  t.deepEqual(cached({ 'gen_ai.usage.cache_read.input_tokens': 100, 'ai.usage.inputTokenDetails.cacheReadTokens': 200 }), [900, 100]);
  t.regex(String(cached({ 'ai.usage.cachedInputTokens': -1 })), /ai\.usage\.cachedInputTokens must be an integer/);
});
