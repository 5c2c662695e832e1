/**
 * What merging a chat turn's reads into one statement would save (`npm run bench:chat:reads`),
 * measured before building it (issue 38 item 4). The route reads five things at once before the
 * model call (the organization's key, the price list, the offered tools, the agent's MCP servers,
 * the conversation's history), each its own statement on its own pooled connection. The cut the
 * CPU profile names is one statement whose five columns are those results as JSON. Both sides here
 * return rows of the same shapes (one key row, a boolean, 4 tool rows, 2 server rows, a history row
 * with a JSON array) through the service's own pool (`createDatabasePool`: zod row checks, type
 * parsers), so the difference is the per-statement cost of slonik and pg, not the queries' plans.
 * One process, a fresh database; CPU is this process's, per turn.
 */
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../../app/db/pool.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';

const TURNS = Number(process.env.BENCH_TURNS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const KeyRow = z.object({ id: z.string(), provider: z.string(), createdAt: z.string() });
const PricedRow = z.object({ priced: z.boolean() });
const ToolRow = z.object({ toolName: z.string(), providerKey: z.string(), permissionStatus: z.string(), hasOverride: z.boolean() });
const ServerRow = z.object({ id: z.string(), url: z.string(), status: z.string() });
const HistoryRow = z.object({ id: z.string(), messageCount: z.number(), messages: z.array(z.unknown()) });
const MergedRow = z.object({
  key: KeyRow.nullable(),
  priced: z.boolean(),
  tools: z.array(ToolRow),
  servers: z.array(ServerRow),
  history: HistoryRow.nullable(),
});

// The five questions' row sources, shared by both sides so only the statement count differs.
const key = sql.fragment`SELECT gen_random_uuid()::text AS id, 'openai' AS provider,
  to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"`;
const priced = sql.fragment`SELECT true AS priced`;
const tools = sql.fragment`SELECT 'create_issue_' || i AS "toolName", 'mcp:' || i AS "providerKey",
  'needs_approval' AS "permissionStatus", false AS "hasOverride" FROM generate_series(1, 4) i`;
const servers = sql.fragment`SELECT gen_random_uuid()::text AS id, 'https://mcp.example/' || i AS url, 'connected' AS status
  FROM generate_series(1, 2) i`;
const history = sql.fragment`SELECT gen_random_uuid()::text AS id, 3 AS "messageCount",
  '[{"id":"a","role":"user","parts":[{"type":"text","text":"hello"}]}]'::json AS messages`;

type Pool = Awaited<ReturnType<typeof createDatabasePool>>;

const fiveStatements = (db: Pool) =>
  Promise.all([
    db.maybeOne(sql.type(KeyRow)`${key}`),
    db.one(sql.type(PricedRow)`${priced}`),
    db.any(sql.type(ToolRow)`${tools}`),
    db.any(sql.type(ServerRow)`${servers}`),
    db.maybeOne(sql.type(HistoryRow)`${history}`),
  ]);

const oneStatement = (db: Pool) =>
  db.one(sql.type(MergedRow)`SELECT
    (SELECT row_to_json(k) FROM (${key}) k) AS key,
    (${priced}) AS priced,
    (SELECT COALESCE(json_agg(t), '[]') FROM (${tools}) t) AS tools,
    (SELECT COALESCE(json_agg(s), '[]') FROM (${servers}) s) AS servers,
    (SELECT row_to_json(h) FROM (${history}) h) AS history`);

type Cell = { cpuMs: number; p50Ms: number; perSecond: number };

/** `turns` reads by `concurrency` loops; CPU per turn, latency p50, turns per second. */
async function cell(run: () => Promise<unknown>, concurrency: number, turns: number): Promise<Cell> {
  for (let i = 0; i < 200; i++) await run();
  let left = turns;
  const took: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const began = performance.now();
        await run();
        took.push(performance.now() - began);
      }
    }),
  );
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpu);
  took.sort((a, b) => a - b);
  return { cpuMs: (used.user + used.system) / 1000 / turns, p50Ms: took[took.length >> 1]!, perSecond: turns / (wall / 1000) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const database = await createTestDatabase({ empty: true });
const db = await createDatabasePool(database.url, { maximumPoolSize: 10 });
try {
  const rows: string[] = [];
  for (const concurrency of [1, 64]) {
    const five: Cell[] = [];
    const one: Cell[] = [];
    // Alternated, so a noisy moment hurts both sides alike; the median round is printed.
    for (let round = 0; round < ROUNDS; round++) {
      five.push(await cell(() => fiveStatements(db), concurrency, TURNS));
      one.push(await cell(() => oneStatement(db), concurrency, TURNS));
    }
    const [f, o] = [five, one].map((cells) => ({
      cpuMs: median(cells.map((c) => c.cpuMs)),
      p50Ms: median(cells.map((c) => c.p50Ms)),
      perSecond: median(cells.map((c) => c.perSecond)),
    })) as [Cell, Cell];
    rows.push(
      `| five statements at once (the route today) | ${concurrency} | ${TURNS} | ${f.cpuMs.toFixed(3)} | 1.00x | ${f.p50Ms.toFixed(2)} | ${f.perSecond.toFixed(0)} |`,
      `| one statement, five JSON columns | ${concurrency} | ${TURNS} | ${o.cpuMs.toFixed(3)} | ${(o.cpuMs / f.cpuMs).toFixed(2)}x | ${o.p50Ms.toFixed(2)} | ${o.perSecond.toFixed(0)} |`,
      `| saved per turn | ${concurrency} | | ${(f.cpuMs - o.cpuMs).toFixed(3)} | | ${(f.p50Ms - o.p50Ms).toFixed(2)} | |`,
    );
  }
  console.log(`Node ${process.version}, pool of 10, median of ${ROUNDS} alternated rounds\n`);
  console.log('| reads | c | turns | CPU ms per turn | vs today | p50 ms | turns/s |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
} finally {
  await db.end();
  await database.drop();
}
