import anyTest from 'ava';
import { sql, type DatabasePool } from 'slonik';
import type { Agent } from 'supertest';
import { withTestApp } from '../helpers/app.ts';
import { entry } from './fixtures.ts';

const test = withTestApp(anyTest);

type Entry = { id: string; name: string; tags: string[]; createdAt: string; updatedAt: string };

// Five entries with known creation times (one minute apart) and tags.
const ROWS = [
  { name: 'Alpha', tags: ['docs'] },
  { name: 'bravo', tags: ['search', 'web'] },
  { name: 'Charlie', tags: ['web'] },
  { name: 'Delta', tags: ['database'] },
  { name: 'Echo', tags: ['docs', 'database'] },
];

type T = { context: { t: { login(e: string): Promise<string>; http: () => Agent; db: { pool: DatabasePool } } } };

// Hooks registered with test.before run concurrently with the app helper's, so the fixture is built on first use.
let fixture: Promise<void> | undefined;
const ready = (t: T) => (fixture ??= createRows(t));

async function createRows(t: T) {
  const auth = `Bearer ${await t.context.t.login('admin@platform.test')}`;
  for (const [index, row] of ROWS.entries()) {
    const created = await t.context.t
      .http()
      .post('/api/available-mcps')
      .set('authorization', auth)
      .send(entry(row.name, { tags: row.tags }))
      .expect(201);
    const at = new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString();
    // Distinct createdAt, and updatedAt in the reverse order, so the two sorts are distinguishable.
    // Delta and Echo share one updatedAt, so a second key (or the id) decides their order.
    const updated = new Date(Date.UTC(2026, 0, 2, 0, 10 - Math.min(index, 3))).toISOString();
    await t.context.t.db.pool.query(
      sql.unsafe`UPDATE available_mcps SET created_at = ${at}, updated_at = ${updated} WHERE id = ${created.body.id}`,
    );
  }
  const hidden = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Hidden', { tags: ['docs'] }))
    .expect(201);
  await t.context.t.http().delete(`/api/available-mcps/${hidden.body.id}`).set('authorization', auth).expect(200);
}

async function list(t: T, query: string) {
  await ready(t);
  const auth = `Bearer ${await t.context.t.login('member@demo.test')}`;
  const response = await t.context.t.http().get(`/api/available-mcps${query}`).set('authorization', auth).expect(200);
  return response.body as Entry[];
}

const names = (entries: Entry[]) => entries.map((e) => e.name);

test('any signed-in user lists active entries, newest first by default; soft-deleted ones are absent', async (t) => {
  t.deepEqual(names(await list(t, '')), ['Echo', 'Delta', 'Charlie', 'bravo', 'Alpha']);
});

test('listing needs a valid token', async (t) => {
  const missing = await t.context.t.http().get('/api/available-mcps').expect(401);
  t.is(missing.body.statusCode, 401);
  const invalid = await t.context.t.http().get('/api/available-mcps').set('authorization', 'Bearer nope').expect(401);
  t.is(invalid.body.statusCode, 401);
});

test('tags filter with OR semantics in bracket-indexed form', async (t) => {
  t.deepEqual(names(await list(t, '?tags[0]=docs')), ['Echo', 'Alpha']);
  t.deepEqual(names(await list(t, '?tags[0]=search&tags[1]=database')), ['Echo', 'Delta', 'bravo']);
  t.deepEqual(names(await list(t, '?tags[0]=nothing-has-this')), []);
});

test('page and limit select one page; a page past the end is []', async (t) => {
  t.deepEqual(names(await list(t, '?limit=2')), ['Echo', 'Delta']);
  t.deepEqual(names(await list(t, '?limit=2&page=2')), ['Charlie', 'bravo']);
  t.deepEqual(names(await list(t, '?limit=2&page=3')), ['Alpha']);
  t.deepEqual(await list(t, '?limit=2&page=4'), []);
});

test('sort by name, updatedAt or createdAt in either direction', async (t) => {
  t.deepEqual(names(await list(t, '?sort[0][field]=name&sort[0][direction]=asc')), ['Alpha', 'bravo', 'Charlie', 'Delta', 'Echo']);
  t.deepEqual(names(await list(t, '?sort[0][field]=name&sort[0][direction]=desc')), ['Echo', 'Delta', 'Charlie', 'bravo', 'Alpha']);
  t.deepEqual(names(await list(t, '?sort[0][field]=updatedAt&sort[0][direction]=desc')), ['Alpha', 'bravo', 'Charlie', 'Echo', 'Delta']);
  t.deepEqual(names(await list(t, '?sort[0][field]=createdAt')), ['Alpha', 'bravo', 'Charlie', 'Delta', 'Echo']);
});

test('a second sort key orders ties of the first; the id breaks remaining ties', async (t) => {
  const byNameDesc = await list(t, '?sort[0][field]=updatedAt&sort[0][direction]=desc&sort[1][field]=name&sort[1][direction]=desc');
  t.deepEqual(names(byNameDesc).slice(3), ['Echo', 'Delta']);
  const byNameAsc = await list(t, '?sort[0][field]=updatedAt&sort[0][direction]=desc&sort[1][field]=name&sort[1][direction]=asc');
  t.deepEqual(names(byNameAsc).slice(3), ['Delta', 'Echo']);
  // Without a second key, ties follow the id (UUID v7: creation order) in the last key's direction.
  t.deepEqual(names(await list(t, '?sort[0][field]=updatedAt&sort[0][direction]=asc')).slice(0, 2), ['Delta', 'Echo']);
});

test('bad paging or sorting parameters are a 400 naming the parameter', async (t) => {
  const auth = `Bearer ${await t.context.t.login('member@demo.test')}`;
  const get = (query: string) => t.context.t.http().get(`/api/available-mcps${query}`).set('authorization', auth).expect(400);
  t.deepEqual(
    (await get('?limit=0')).body.errors.map((e: { path: string[] }) => e.path),
    [['query', 'limit']],
  );
  t.deepEqual(
    (await get('?limit=101')).body.errors.map((e: { path: string[] }) => e.path),
    [['query', 'limit']],
  );
  t.deepEqual(
    (await get('?page=0')).body.errors.map((e: { path: string[] }) => e.path),
    [['query', 'page']],
  );
  t.deepEqual((await get('?sort[0][field]=id')).body.errors, [
    { path: ['query', 'sort', '0', 'field'], message: 'must be one of: createdAt, updatedAt, name' },
  ]);
  t.deepEqual(
    (await get('?sort[0][field]=name&sort[0][direction]=up')).body.errors.map((e: { path: string[] }) => e.path),
    [['query', 'sort', '0', 'direction']],
  );
  t.deepEqual((await get('?color=red')).body.errors, [{ path: ['query', 'color'], message: 'Unrecognized key' }]);
});
