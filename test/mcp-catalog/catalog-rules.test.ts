import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { apiKeyVariant, entry, freeVariant, oauthVariant } from './fixtures.ts';

const test = withTestApp(anyTest);

async function admin(t: { context: { t: { login(email: string): Promise<string> } } }) {
  return `Bearer ${await t.context.t.login('admin@platform.test')}`;
}

test('an admin creates an entry and gets 201 with the full entry and a UUID v7 id', async (t) => {
  const body = entry('Create Me', { variants: [freeVariant(), apiKeyVariant(), oauthVariant()], tags: ['docs', 'search'] });
  const response = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await admin(t))
    .send(body)
    .expect(201);
  t.regex(response.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.like(response.body, { name: 'Create Me', description: 'Create Me description', logo: 'logos/deepwiki.svg', isActive: true });
  t.deepEqual(response.body.tags, ['docs', 'search']);
  t.deepEqual(response.body.variants, body.variants);
  t.is(new Date(response.body.createdAt).toISOString(), response.body.createdAt);
  t.is(response.body.updatedAt, response.body.createdAt);
});

test('catalog mutations without the platform policy are 403, and without a token 401', async (t) => {
  const owner = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const created = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await admin(t))
    .send(entry('Guarded'))
    .expect(201);
  const id = created.body.id as string;
  const http = t.context.t.http;
  t.deepEqual((await http().post('/api/available-mcps').set('authorization', owner).send(entry('Nope')).expect(403)).body, {
    statusCode: 403,
    message: 'Forbidden',
  });
  await http().patch(`/api/available-mcps/${id}`).set('authorization', owner).send({ name: 'Renamed' }).expect(403);
  await http().delete(`/api/available-mcps/${id}`).set('authorization', owner).expect(403);
  await http().post('/api/available-mcps').send(entry('Nope')).expect(401);
  // Nothing changed.
  const list = await http().get('/api/available-mcps').set('authorization', owner).expect(200);
  t.deepEqual(
    list.body.filter((e: { id: string }) => e.id === id).map((e: { name: string }) => e.name),
    ['Guarded'],
  );
});

test('a blank name or no non-empty tag is a 400 at that field', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  const blank = await http().post('/api/available-mcps').set('authorization', auth).send(entry('   ')).expect(400);
  t.deepEqual(blank.body.errors, [{ path: ['name'], message: 'must not be empty' }]);
  const noName = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send({ ...entry('x'), name: undefined })
    .expect(400);
  t.deepEqual(noName.body.errors, [{ path: ['name'], message: 'Required' }]);
  const noTags = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('No Tags', { tags: [] }))
    .expect(400);
  t.deepEqual(
    noTags.body.errors.map((e: { path: string[] }) => e.path),
    [['tags']],
  );
  const emptyTag = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Empty Tag', { tags: [''] }))
    .expect(400);
  t.deepEqual(
    emptyTag.body.errors.map((e: { path: string[] }) => e.path),
    [['tags', '0']],
  );
});

test('missing or empty variants are a 422 without errors list, on create and on update', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  const missing = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send({ ...entry('No Variants'), variants: undefined })
    .expect(422);
  t.deepEqual(Object.keys(missing.body).sort(), ['message', 'statusCode']);
  t.is(missing.body.statusCode, 422);
  await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Empty Variants', { variants: [] }))
    .expect(422);
  const created = await http().post('/api/available-mcps').set('authorization', auth).send(entry('Has Variants')).expect(201);
  await http().patch(`/api/available-mcps/${created.body.id}`).set('authorization', auth).send({ variants: [] }).expect(422);
});

test('an apikey variant without credential fields is a 400 pointing at that variant', async (t) => {
  const key = apiKeyVariant();
  const response = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await admin(t))
    .send(entry('Keyless', { variants: [freeVariant(), { ...key, credentialSchema: { type: 'apikey', fields: [] } }] }))
    .expect(400);
  t.deepEqual(response.body.errors, [
    { path: ['variants', '1', 'credentialSchema', 'fields'], message: 'must have at least one credential field for apikey variants' },
  ]);
});

test('free and oauth variants with credential fields are a 400 at their fields', async (t) => {
  const fields = apiKeyVariant().credentialSchema.fields;
  const free = freeVariant();
  const oauth = oauthVariant();
  const response = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await admin(t))
    .send(
      entry('Fielded', {
        variants: [
          { ...free, credentialSchema: { type: 'free', fields } },
          { ...oauth, credentialSchema: { type: 'oauth', fields } },
        ],
      }),
    )
    .expect(400);
  t.deepEqual(response.body.errors, [
    { path: ['variants', '0', 'credentialSchema', 'fields'], message: 'must be empty for free and oauth variants' },
    { path: ['variants', '1', 'credentialSchema', 'fields'], message: 'must be empty for free and oauth variants' },
  ]);
});

test('a credentialSchema type that differs from the variant type is a 400 at that type', async (t) => {
  const response = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await admin(t))
    .send(entry('Mismatch', { variants: [{ ...oauthVariant(), credentialSchema: { type: 'free', fields: [] } }] }))
    .expect(400);
  t.deepEqual(response.body.errors, [{ path: ['variants', '0', 'credentialSchema', 'type'], message: 'must be "oauth"' }]);
});

test('an unknown variant type, a bad transport or a field error is reported at the variant index and field', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  const unknown = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Unknown', { variants: [freeVariant(), { ...freeVariant(), type: 'basic' }] }))
    .expect(400);
  t.deepEqual(unknown.body.errors, [{ path: ['variants', '1', 'type'], message: 'is not a known variant type' }]);
  const transport = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Ws', { variants: [{ ...freeVariant(), transportType: 'websocket' }] }))
    .expect(400);
  t.deepEqual(transport.body.errors, [{ path: ['variants', '0', 'transportType'], message: 'must be one of: http, sse' }]);
  const key = apiKeyVariant();
  const badField = { ...key, credentialSchema: { type: 'apikey', fields: [{ ...key.credentialSchema.fields[0], type: 'secret' }] } };
  const field = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Field', { variants: [badField] }))
    .expect(400);
  t.deepEqual(field.body.errors, [
    { path: ['variants', '0', 'credentialSchema', 'fields', '0', 'type'], message: 'must be one of: text, password, header' },
  ]);
  const extra = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Extra', { variants: [{ ...freeVariant(), headers: {} }] }))
    .expect(400);
  t.deepEqual(extra.body.errors, [{ path: ['variants', '0', 'headers'], message: 'Unrecognized key' }]);
});

test('a variant type given twice or a credential key repeated within a variant is a 400', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  const twice = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Twice', { variants: [freeVariant(), oauthVariant(), freeVariant('https://b.example.com')] }))
    .expect(400);
  t.deepEqual(
    twice.body.errors.map((e: { path: string[] }) => e.path),
    [['variants', '2', 'type']],
  );
  const key = apiKeyVariant();
  const dup = {
    ...key,
    credentialSchema: {
      type: 'apikey',
      fields: [key.credentialSchema.fields[0], { ...key.credentialSchema.fields[0], key: 'authorization' }],
    },
  };
  const repeated = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Repeated', { variants: [dup] }))
    .expect(400);
  t.deepEqual(
    repeated.body.errors.map((e: { path: string[] }) => e.path),
    [['variants', '0', 'credentialSchema', 'fields', '1', 'key']],
  );
  // Another variant may reuse a key.
  await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Reuse', { variants: [key, { ...oauthVariant() }] }))
    .expect(201);
});

test('a taken name is a 409 on create (case-insensitively) and on update', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  await http().post('/api/available-mcps').set('authorization', auth).send(entry('Taken Name')).expect(201);
  const again = await http().post('/api/available-mcps').set('authorization', auth).send(entry('taken name')).expect(409);
  t.deepEqual(again.body, { statusCode: 409, message: 'A catalog entry with this name already exists' });
  const other = await http().post('/api/available-mcps').set('authorization', auth).send(entry('Other Name')).expect(201);
  await http().patch(`/api/available-mcps/${other.body.id}`).set('authorization', auth).send({ name: 'Taken Name' }).expect(409);
  // Renaming an entry to its own name is not a conflict.
  await http().patch(`/api/available-mcps/${other.body.id}`).set('authorization', auth).send({ name: 'Other Name' }).expect(200);
});

test('ten concurrent creates of one name give one 201 and nine 409', async (t) => {
  const auth = await admin(t);
  const responses = await Promise.all(
    Array.from({ length: 10 }, () => t.context.t.http().post('/api/available-mcps').set('authorization', auth).send(entry('Race'))),
  );
  const statuses = responses.map((r) => r.status).sort();
  t.deepEqual(statuses, [201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
});

test('PATCH changes only the given fields and refreshes updatedAt', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  const created = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Patch Me', { tags: ['a', 'b'] }))
    .expect(201);
  const patched = await http()
    .patch(`/api/available-mcps/${created.body.id}`)
    .set('authorization', auth)
    .send({ tags: ['c'] })
    .expect(200);
  t.deepEqual(patched.body, { ...created.body, tags: ['c'], updatedAt: patched.body.updatedAt });
  t.true(patched.body.updatedAt >= created.body.updatedAt);
  const variants = await http()
    .patch(`/api/available-mcps/${created.body.id}`)
    .set('authorization', auth)
    .send({ variants: [oauthVariant()], logo: 'logos/github.svg' })
    .expect(200);
  t.deepEqual(variants.body.variants, [oauthVariant()]);
  t.is(variants.body.logo, 'logos/github.svg');
  t.deepEqual(variants.body.tags, ['c']);
  const hosted = await http()
    .patch(`/api/available-mcps/${created.body.id}`)
    .set('authorization', auth)
    .send({ logo: 'https://cdn.example.com/x.svg' })
    .expect(200);
  t.is(hosted.body.logo, 'https://cdn.example.com/x.svg');
  for (const logo of [
    'http://evil.example.com/x.svg',
    '../logos/github.svg',
    'javascript:alert(1)',
    'https://user:pw@cdn.example.com/x.svg',
  ]) {
    const bad = await http().patch(`/api/available-mcps/${created.body.id}`).set('authorization', auth).send({ logo }).expect(400);
    t.deepEqual(
      bad.body.errors.map((e: { path: string[] }) => e.path),
      [['logo']],
      logo,
    );
  }
  const unchanged = await http().get(`/api/available-mcps?limit=100`).set('authorization', auth).expect(200);
  t.is(unchanged.body.find((e: { id: string }) => e.id === created.body.id)?.logo, 'https://cdn.example.com/x.svg');
});

test('PATCH and DELETE of an unknown id are 404, and a non-UUID id is 400', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  const missing = '01900000-0000-7000-8000-00000000dead';
  t.deepEqual((await http().patch(`/api/available-mcps/${missing}`).set('authorization', auth).send({ name: 'x' }).expect(404)).body, {
    statusCode: 404,
    message: 'Catalog entry not found',
  });
  await http().delete(`/api/available-mcps/${missing}`).set('authorization', auth).expect(404);
  const bad = await http().delete('/api/available-mcps/not-a-uuid').set('authorization', auth).expect(400);
  t.deepEqual(bad.body.errors, [{ path: ['params', 'id'], message: 'must be a UUID v7' }]);
});

test('DELETE soft-deletes: 200 with isActive false, gone from the list, and a repeat is 200 again', async (t) => {
  const auth = await admin(t);
  const http = t.context.t.http;
  const created = await http()
    .post('/api/available-mcps')
    .set('authorization', auth)
    .send(entry('Delete Me', { tags: ['deleteme'] }))
    .expect(201);
  const first = await http().delete(`/api/available-mcps/${created.body.id}`).set('authorization', auth).expect(200);
  t.like(first.body, { id: created.body.id, name: 'Delete Me', isActive: false });
  const list = await http().get('/api/available-mcps?tags[0]=deleteme').set('authorization', auth).expect(200);
  t.deepEqual(list.body, []);
  const second = await http().delete(`/api/available-mcps/${created.body.id}`).set('authorization', auth).expect(200);
  t.deepEqual(second.body, first.body);
  const stored = await t.context.t.db.pool.oneFirst(
    (await import('slonik')).sql.unsafe`SELECT count(*)::int FROM available_mcps WHERE id = ${created.body.id}`,
  );
  t.is(stored, 1);
});
