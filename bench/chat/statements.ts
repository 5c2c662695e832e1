/**
 * The PostgreSQL statements of a text turn, alone (`npm run bench:chat:statements`): the service
 * in a child process over a fresh demo database and a scripted provider, 20 new conversations at
 * c=1 with titles on (the title's call answered at once), every statement the service sends counted
 * (BEGIN and COMMIT included) and listed by its text. Counts, not times: a loaded host gives the
 * same figures. `bench:chat` counts the same turns before its timed cells.
 */
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { accessToken } from '../../test/analytics/support.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { startOpenAiPeer } from '../../test/helpers/openai-peer.ts';
import { startService, statementsOf, stopService } from '../service-process.ts';
import { runConcurrent, timeStream } from './timing.ts';

const TURNS = 20;

async function main() {
  const db = await createTestDatabase();
  await seedDemo(db.pool);
  const provider = await startOpenAiPeer(() => ({
    kind: 'text',
    text: 'The scripted provider answers with a short paragraph.',
    pieces: 8,
  }));
  const { child, base } = await startService({ databaseUrl: db.url, gatewayUrl: provider.url });
  const auth = {
    authorization: `Bearer ${accessToken(USERS.owner.id, ORGANIZATIONS.demoAgency.id)}`,
    'content-type': 'application/json',
  };
  let counter = 0;
  const turn = async () => {
    const started = performance.now();
    const response = await fetch(`${base}/api/ai/agents/${AGENTS.support.id}/chat`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ id: `count-${counter++}`, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hello' }] }] }),
    });
    if (response.status !== 200) throw new Error(`chat answered ${response.status}`);
    return timeStream(response, started, (data) => data.includes('"type":"text-delta"'));
  };
  await runConcurrent(10, 1, turn);
  // The titles of the warm-up turns are written beside them: let them land before counting.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await statementsOf(child);
  await runConcurrent(TURNS, 1, turn);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const statements = Object.entries(await statementsOf(child)).sort(([, a], [, b]) => b - a);
  const total = statements.reduce((sum, [, n]) => sum + n, 0) / TURNS;
  process.stdout.write(`PostgreSQL statements per text turn of a new conversation, its title included: ${total.toFixed(2)}\n`);
  for (const [text, n] of statements) process.stdout.write(`  ${(n / TURNS).toFixed(2)}  ${text}\n`);
  await stopService(child);
  await provider.close();
  await db.drop();
}

await main();
