import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { sql } from 'slonik';
import { z } from 'zod';
import { createApp } from '../app/app.ts';
import { MAX_ANSWER_BYTES } from '../app/metering/answer-cap.ts';
import { AGENTS } from '../seeds/demo-fixtures.ts';
import { testConfig } from '../test/helpers/app.ts';
import { startOpenAiPeer } from '../test/helpers/openai-peer.ts';
import type { AttackCase } from './attack-cases.ts';
import type { Harness } from './harness.ts';
import type { Caller } from './valid.ts';

const ANSWER_BYTES = 15 * 1024 * 1024;

/**
 * A huge answer (issue 37): a provider that streams a 15 MB answer to one chat turn, as an
 * organization's own endpoint could. Held when the turn answers 200, its stream ends with
 * `finish` reason `length`, the stored answer holds at most 1 MiB of text and the provider's
 * stream was cut before its end.
 */
export async function hugeAnswer(harness: Harness, caller: Caller): Promise<AttackCase> {
  const peer = await startOpenAiPeer(() => ({ kind: 'huge', bytes: ANSWER_BYTES }));
  const base = testConfig({ nodeEnv: 'development' });
  const config = { ...base, ai: { ...base.ai, gatewayUrl: peer.url, gatewayApiKey: 'sk-fuzz-platform-key-0001' } };
  const app = createApp({ db: harness.db.pool, config, logger: pino({ level: 'silent' }), rateLimits: false });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const chatId = `fuzz-huge-${Date.now()}`;
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const headers = { authorization: `Bearer ${caller.token!}`, 'content-type': 'application/json' };
  try {
    // The fuzzed phases may have left an organization key (BYOK) at some other address, the demo
    // agents on unpriced models or an enforced budget spent: no key, no budget and a fresh agent
    // on a priced model, so the turn reaches this provider.
    await fetch(`${origin}/api/ai/provider-key`, { method: 'DELETE', headers });
    await fetch(`${origin}/api/ai/org-usage/budget`, { method: 'DELETE', headers });
    const created = await fetch(`${origin}/api/ai/agents`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Huge answer target', modelId: 'openai/gpt-4o-mini' }),
    });
    const agentId = ((await created.json()) as { id?: string }).id ?? AGENTS.support.id;
    const response = await fetch(`${origin}/api/ai/agents/${agentId}/chat`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ id: chatId, messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Write forever.' }] }] }),
    });
    const stream = await response.text();
    const cutAtLength = stream.includes('{"type":"finish","finishReason":"length"}');
    const stored = await harness.db.pool.anyFirst(sql.type(z.strictObject({ bytes: z.number() }))`
      SELECT octet_length(coalesce((SELECT string_agg(p->>'text', '') FROM jsonb_array_elements(m.parts) p WHERE p->>'type' = 'text'), ''))::int AS bytes
      FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id
      WHERE c.client_id = ${chatId} AND m.role = 'assistant'`);
    const providerCut = peer.closes[0] !== undefined && (await peer.closes[0]).finished === false;
    const largest = Math.max(0, ...stored);
    return {
      name: `huge answer: a provider streams ${ANSWER_BYTES / 2 ** 20} MiB to one chat turn`,
      held: response.status === 200 && cutAtLength && stored.length === 1 && largest <= MAX_ANSWER_BYTES && providerCut,
      detail: `status ${response.status}${cutAtLength ? '' : ` (${stream.slice(0, 300)})`}; finish length: ${cutAtLength}; stored ${largest} bytes of text; provider stream cut: ${providerCut}`,
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await peer.close();
  }
}
