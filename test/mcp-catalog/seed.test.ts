import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import anyTest from 'ava';
import { pino } from 'pino';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { prepareData } from '../../seeds/prepare-data.ts';
import { seedCatalog } from '../../seeds/mcp-catalog.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { readSeedFacts } from './seed-facts.ts';

const test = withTestApp(anyTest);
const silent = pino({ level: 'silent' });

type Field = { key: string; type: string; required: boolean; valueTemplate?: string };
type StoredVariant = { type: string; url: string; transportType: string; credentialSchema: { type: string; fields: Field[] } };
const Row = z.object({
  name: z.string(),
  seedKey: z.string().nullable(),
  tags: z.array(z.string()),
  logo: z.string(),
  description: z.string(),
  isActive: z.boolean(),
  variants: z.array(z.any()),
});
const rows = (t: { context: { t: { db: { pool: DatabasePool } } } }) =>
  t.context.t.db.pool.any(sql.type(Row)`
    SELECT name, seed_key AS "seedKey", tags, logo, description, is_active AS "isActive", variants
    FROM available_mcps ORDER BY name`);

test.serial('a fresh database gets exactly the 23 entries of the facts file at start, URLs and variants included', async (t) => {
  await prepareData(t.context.t.db.pool, testConfig(), silent);
  const stored = await rows(t);
  const facts = readSeedFacts();
  t.is(facts.length, 23);
  t.is(stored.length, 23);
  for (const fact of facts) {
    const row = stored.find((r) => r.name === fact.name);
    if (!row) {
      t.fail(`${fact.name} missing`);
      continue;
    }
    t.deepEqual(row.tags, fact.tags, fact.name);
    t.true(row.description.length > 0 && row.description.length <= 100, fact.name);
    t.regex(row.logo, /^logos\/[a-z0-9-]+\.svg$/);
    const variants = row.variants as StoredVariant[];
    t.deepEqual(
      variants.map((v) => [v.type, v.url, v.transportType, v.credentialSchema.type]),
      fact.variants.map((v) => [v.type, v.url, fact.transport, v.type]),
      fact.name,
    );
    for (const [index, variant] of fact.variants.entries()) {
      const fields = variants[index]!.credentialSchema.fields;
      if (variant.type !== 'apikey') {
        t.deepEqual(fields, [], fact.name);
        continue;
      }
      t.is(fields.length, 1, fact.name);
      t.like(fields[0], { key: variant.header, type: 'header', required: true }, fact.name);
      t.is(fields[0]!.valueTemplate ?? '{value}', `${variant.prefix}{value}`, fact.name);
    }
  }
});

test.serial('admin edits, renames and soft deletes of seeded entries survive a restart, and the count stays 23', async (t) => {
  const auth = `Bearer ${await t.context.t.login('admin@platform.test')}`;
  const http = t.context.t.http;
  const list = (await http().get('/api/available-mcps?limit=100').set('authorization', auth).expect(200)).body as {
    id: string;
    name: string;
  }[];
  const id = (name: string) => list.find((e) => e.name === name)!.id;
  const variant = {
    type: 'oauth',
    url: 'https://mcp.notion.com/mcp',
    transportType: 'sse',
    credentialSchema: { type: 'oauth', fields: [] },
  };
  await http()
    .patch(`/api/available-mcps/${id('Notion')}`)
    .set('authorization', auth)
    .send({ tags: ['wiki'], logo: 'logos/linear.svg', variants: [variant] })
    .expect(200);
  await http()
    .patch(`/api/available-mcps/${id('GitHub')}`)
    .set('authorization', auth)
    .send({ name: 'GitHub (company)' })
    .expect(200);
  await http()
    .delete(`/api/available-mcps/${id('Semgrep')}`)
    .set('authorization', auth)
    .expect(200);

  await prepareData(t.context.t.db.pool, testConfig(), silent);
  t.is(await seedCatalog(t.context.t.db.pool), 0);

  const stored = await rows(t);
  t.is(stored.length, 23);
  t.is(stored.filter((r) => r.seedKey !== null).length, 23);
  t.like(
    stored.find((r) => r.name === 'Notion'),
    { tags: ['wiki'], logo: 'logos/linear.svg', variants: [variant] },
  );
  t.truthy(stored.find((r) => r.name === 'GitHub (company)'));
  t.falsy(stored.find((r) => r.name === 'GitHub'));
  t.like(
    stored.find((r) => r.name === 'Semgrep'),
    { isActive: false },
  );
});

test.serial('four concurrent starts on an empty catalog still give 23 entries', async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM available_mcps`);
  const inserted = await Promise.all(Array.from({ length: 4 }, () => seedCatalog(t.context.t.db.pool)));
  t.is(
    inserted.reduce((a, b) => a + b, 0),
    23,
  );
  t.is((await rows(t)).length, 23);
});

test.serial('a catalog entry an admin created under a seeded name keeps the seed from adding a second one', async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM available_mcps`);
  const auth = `Bearer ${await t.context.t.login('admin@platform.test')}`;
  const own = {
    name: 'deepwiki',
    tags: ['mine'],
    variants: [{ type: 'free', url: 'https://example.com/mcp', transportType: 'http', credentialSchema: { type: 'free', fields: [] } }],
  };
  await t.context.t.http().post('/api/available-mcps').set('authorization', auth).send(own).expect(201);
  t.is(await seedCatalog(t.context.t.db.pool), 22);
  const stored = await rows(t);
  t.is(stored.length, 23);
  t.deepEqual(stored.find((r) => r.name.toLowerCase() === 'deepwiki')?.tags, ['mine']);
});

test.serial('`cli seed catalog` inserts the absent entries and says how many', async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM available_mcps WHERE seed_key IN ('exa', 'tavily')`);
  const { stderr } = await promisify(execFile)(process.execPath, ['--conditions=agents-source', 'bin/cli.ts', 'seed', 'catalog'], {
    env: { ...process.env, DATABASE_URL: t.context.t.db.url, NODE_ENV: 'test', DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-')) },
  });
  t.regex(stderr, /2 entries inserted, 21 already present/);
  t.is((await rows(t)).length, 23);
});
