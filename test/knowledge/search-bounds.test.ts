import anyTest from 'ava';
import type { UIMessage } from 'ai';
import { sql, type DatabasePool } from 'slonik';
import { searchKnowledge } from '../../app/knowledge/service.ts';
import { COMMON_WORD_PASSAGES, SEARCH_CANDIDATES } from '../../sql/knowledge-search.ts';
import { seedDemoKnowledge } from '../../seeds/demo-knowledge.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { bearer, chatConfig, provider, sendChat, serve, textOf, userMessage } from '../chat/support.ts';
import { startEmbeddingPeer } from './embedding-peer.ts';

const test = withTestApp(anyTest);

const support = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.owner.id };

/** A document of the agent with these chunks (ordinal = position), straight in the tables. */
async function insertChunks(pool: DatabasePool, agentId: string, name: string, chunks: { heading: string; body: string }[]) {
  const id = crypto.randomUUID();
  await pool.query(sql.unsafe`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, text_bytes, created_at)
    VALUES (${id}, ${ORGANIZATIONS.demoAgency.id}, ${agentId}, ${name}, 'text/markdown', 1, ${chunks.length}, 1, now())`);
  await pool.query(sql.unsafe`
    INSERT INTO knowledge_chunks (document_id, agent_id, ordinal, heading, body)
    SELECT ${id}, ${agentId}, c.ordinal - 1, c.heading, c.body
    FROM unnest(${sql.array(
      chunks.map((chunk) => chunk.heading),
      'text',
    )}::text[], ${sql.array(
      chunks.map((chunk) => chunk.body),
      'text',
    )}::text[]) WITH ORDINALITY AS c(heading, body, ordinal)
    ORDER BY c.ordinal`);
}

// First in the file: the table is fresh, so rows lie in the order they were inserted.
test.serial(
  'each search step ranks a bounded candidate set: a better passage past the first SEARCH_CANDIDATES (300) matches is not ranked',
  async (t) => {
    const fillers = Array.from({ length: SEARCH_CANDIDATES }, (_, i) => ({
      heading: `Note ${i}`,
      body: `An ordinary zephyr note, number ${i}.`,
    }));
    const best = { heading: 'Zephyr', body: 'Zephyr zephyr zephyr: everything about the zephyr.' };
    const pool = t.context.t.db.pool;
    const deps = t.context.t.app.deps;
    // Ten matches and the best one: it ranks first.
    await insertChunks(pool, AGENTS.research.id, 'few.md', [...fillers.slice(0, 10), best]);
    const [few] = await searchKnowledge(deps, { ...support, agentId: AGENTS.research.id }, 'zephyr', 3);
    t.is(few!.heading, 'Zephyr');
    // SEARCH_CANDIDATES matches before it: the ranking never sees it, and answers among them.
    await pool.query(sql.unsafe`DELETE FROM knowledge_documents WHERE agent_id = ${AGENTS.research.id}`);
    await insertChunks(pool, AGENTS.research.id, 'many.md', [...fillers, best]);
    const many = await searchKnowledge(deps, { ...support, agentId: AGENTS.research.id }, 'zephyr', 3);
    t.is(many.length, 3);
    t.false(many.some((passage) => passage.heading === 'Zephyr'));
    // An `or` query, taken as written, is bounded the same way.
    const or = await searchKnowledge(deps, { ...support, agentId: AGENTS.research.id }, 'zephyr or everything', 3);
    t.false(or.some((passage) => passage.heading === 'Zephyr'));
    await pool.query(sql.unsafe`DELETE FROM knowledge_documents WHERE agent_id = ${AGENTS.research.id}`);
  },
);

type ToolPart = { type: string; state: string; errorText?: string };

test.serial(
  'a search past its statement timeout ends the tool call output-error with a message the model reads, and the turn goes on',
  async (t) => {
    await seedDemoKnowledge(t.context.t.app.deps);
    const peer = await provider(t, (_, index) =>
      index === 0
        ? { kind: 'tool-call', toolName: 'search_knowledge_base', input: { query: 'how long do refunds take' } }
        : { kind: 'text', text: 'The search is slow right now.' },
    );
    const config = chatConfig({ gatewayUrl: peer.url });
    const base = await serve(t, { ...config, knowledge: { ...config.knowledge, searchTimeoutMs: 200 } });
    const auth = await bearer(t);
    // Another session holds the passages' table: the search's statement waits until its timeout.
    const { message } = await t.context.t.db.pool.transaction(async (tx) => {
      await tx.query(sql.unsafe`LOCK TABLE knowledge_chunks IN ACCESS EXCLUSIVE MODE`);
      return sendChat(base, auth, 'search-timeout', [userMessage('How long do refunds take?')]);
    });
    const part = (message as UIMessage).parts.find((candidate) => candidate.type === 'tool-search_knowledge_base') as unknown as ToolPart;
    const expected =
      'The knowledge base search was stopped after 200 ms (the knowledge base is large or busy). ' +
      'Try again with fewer, more specific words, or without "or".';
    t.like(part, { state: 'output-error', errorText: expected });
    t.is(textOf(message), 'The search is slow right now.');
    // The model's next call carries the error as the tool's result.
    t.true(JSON.stringify(peer.requests[1]!.body.messages).includes('stopped after 200 ms'));
  },
);

test.serial(
  'without pgvector, an agent past KNOWLEDGE_EXACT_SCAN_MAX_CHUNKS is searched by full text only, without embedding the question',
  async (t) => {
    const peer = await startEmbeddingPeer();
    t.teardown(() => peer.close());
    const base = testConfig();
    const config = (exactScanMaxChunks: number) => ({
      ...base,
      ai: { ...base.ai, gatewayUrl: peer.url, gatewayApiKey: 'sk-platform-test' },
      tools: { ...base.tools, embeddingModel: 'test/concepts' },
      knowledge: { ...base.knowledge, exactScanMaxChunks },
    });
    await t.context.t.db.pool.query(sql.unsafe`DELETE FROM knowledge_documents WHERE agent_id = ${support.agentId}`);
    // The platform embeds only with a priced model.
    await t.context.t.db.pool.query(sql.unsafe`
      INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
      VALUES ('test/concepts', 0.02, 0, 0) ON CONFLICT (model_id) DO NOTHING`);
    t.is(await seedDemoKnowledge(t.context.t.rebuild({ config: config(10_000) }).deps), 4);

    const capped = t.context.t.rebuild({ config: config(2) }).deps;
    const requests = peer.requests.length;
    const [best] = await searchKnowledge(capped, support, 'How long does it take to get my money back?', 3);
    t.is(best!.documentName, 'refunds-and-returns.md');
    t.is(peer.requests.length, requests);
    t.true(
      t.context.t.logs.entries.some(
        (entry) => entry.agentId === support.agentId && String(entry.msg).includes('KNOWLEDGE_EXACT_SCAN_MAX_CHUNKS'),
      ),
    );

    // Within the bound, the question is embedded and the rankings fused.
    await searchKnowledge(t.context.t.rebuild({ config: config(10_000) }).deps, support, 'How long does it take to get my money back?', 3);
    t.is(peer.requests.length, requests + 1);
  },
);

test.serial(
  "a word common in the table's statistics (any agent's passages) is left out of the relaxation, so it counts less",
  async (t) => {
    const pool = t.context.t.db.pool;
    const research = { ...support, agentId: AGENTS.research.id };
    const question = 'quokka basalt gneiss';
    await insertChunks(pool, AGENTS.research.id, 'rocks.md', [
      { heading: 'Basalt', body: 'The quokka sits on basalt.' },
      { heading: 'Gneiss', body: 'Basalt turns into gneiss.' },
    ]);
    // Rare words: holding two of the three counts 2 for both passages.
    const rare = await searchKnowledge(t.context.t.app.deps, research, question, 2);
    t.deepEqual(
      rare.map((passage) => Math.floor(passage.score)),
      [2, 2],
    );
    // Another agent's passages make "quokka" common: only basalt and gneiss relax the question.
    const filler = Array.from({ length: COMMON_WORD_PASSAGES + 500 }, (_, i) => ({ heading: '', body: `A quokka, number ${i}.` }));
    await insertChunks(pool, AGENTS.support.id, 'quokkas.md', filler);
    await pool.query(sql.unsafe`ANALYZE knowledge_chunks`);
    const common = await searchKnowledge(t.context.t.app.deps, research, question, 2);
    t.deepEqual(
      common.map((passage) => [passage.heading, Math.floor(passage.score)]),
      [
        ['Gneiss', 2],
        ['Basalt', 1],
      ],
    );
    await pool.query(sql.unsafe`DELETE FROM knowledge_documents`);
  },
);
