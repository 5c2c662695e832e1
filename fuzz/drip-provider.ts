import type { AddressInfo } from 'node:net';
import { createApp } from '../app/app.ts';
import { chatTurns } from '../app/chat/running-turns.ts';
import type { AppDeps } from '../app/core/deps.ts';
import { seedDemo } from '../seeds/demo.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../seeds/demo-fixtures.ts';
import { accessToken } from '../test/analytics/support.ts';
import { createTestDatabase } from '../test/helpers/database.ts';
import { startOpenAiPeer } from '../test/helpers/openai-peer.ts';
import type { AttackCase } from './attack-cases.ts';

/** The turn deadline of the case's app, and how long past it the stream may take to end. */
const TURN_TIMEOUT_MS = 2_000;
const SLACK_MS = 2_000;

/**
 * A drip provider (issue 37): a model endpoint that sends a few characters, then one byte a
 * second forever (an SSE comment), so an idle timeout never fires. Held when the turn ends within
 * `AI_TURN_TIMEOUT_MS` (plus slack) with an `error` chunk naming the limit, and the provider's
 * request is cut. Runs an app of its own, the provider as its platform one, over a database of
 * its own (the fuzzed one may hold a provider key the fuzzer saved).
 */
export async function dripProvider(deps: AppDeps): Promise<AttackCase> {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const peer = await startOpenAiPeer(() => ({ kind: 'drip', text: 'Hel', everyMs: 1_000, forever: true }));
  const config = {
    ...deps.config,
    ai: {
      ...deps.config.ai,
      gatewayUrl: peer.url,
      gatewayApiKey: 'sk-fuzz-drip',
      providerTimeoutMs: 1_500,
      turnTimeoutMs: TURN_TIMEOUT_MS,
    },
  };
  const app = createApp({ db: db.pool, config, logger: deps.logger, rateLimits: false });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const name = `drip provider: one byte a second past AI_TURN_TIMEOUT_MS=${TURN_TIMEOUT_MS}`;
  try {
    const started = performance.now();
    const response = await fetch(`${base}/api/ai/agents/${AGENTS.support.id}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: `fuzz-drip-${Date.now()}`, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }),
      signal: AbortSignal.timeout(TURN_TIMEOUT_MS + SLACK_MS + 5_000),
    });
    const text = await response.text();
    const ms = Math.round(performance.now() - started);
    const ended = text.includes('limit of a turn and was stopped') && text.trimEnd().endsWith('data: [DONE]');
    const closed = await Promise.race([peer.closes[0]!, new Promise((resolve) => setTimeout(() => resolve('open'), 1_000))]);
    return {
      name,
      held: response.status === 200 && ended && closed !== 'open',
      withinBounds: ms <= TURN_TIMEOUT_MS + SLACK_MS,
      detail: `${response.status}, stream ended after ${ms} ms with ${ended ? 'the deadline error chunk' : `no deadline error chunk: ${text.slice(-300)}`}; provider request ${closed === 'open' ? 'still open' : 'cut'}`,
    };
  } catch (error) {
    return { name, held: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await chatTurns(app.deps).close();
    await peer.close();
    await db.drop();
  }
}
