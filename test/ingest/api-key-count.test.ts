import { randomBytes } from 'node:crypto';
import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { MAX_API_KEYS_PER_ORGANIZATION } from '../../app/api-keys/routes.ts';
import { insertApiKey } from '../../sql/api-keys.ts';
import { createTenant } from '../analytics/support.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { seed: false });

test('twenty concurrent creates at 99 keys make exactly one more key: one 201, nineteen 409', async (t) => {
  const db = t.context.t.db.pool;
  const tenant = await createTenant(db, 'keys-race');
  const { organizationId } = tenant;
  for (let i = 0; i < MAX_API_KEYS_PER_ORGANIZATION - 1; i++) {
    await insertApiKey(db, {
      id: uuidv7(),
      organizationId,
      name: `existing ${i}`,
      scopes: ['usage:write'],
      prefix: `agk_${i}`,
      keyHash: randomBytes(32),
      createdBy: null,
      createdAt: new Date(),
    });
  }
  const statuses = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      t.context.t
        .http()
        .post('/api/api-keys')
        .set('authorization', `Bearer ${tenant.ownerToken}`)
        .send({ name: `racer ${i}`, scopes: ['usage:write'] })
        .then((response) => response.status),
    ),
  );
  t.deepEqual(
    statuses.toSorted((a, b) => a - b),
    [201, ...Array(19).fill(409)],
  );
  const count = await db.oneFirst(sql.type(z.object({ n: z.number() }))`
    SELECT count(*)::int AS n FROM api_keys WHERE organization_id = ${organizationId}`);
  t.is(count, MAX_API_KEYS_PER_ORGANIZATION);
});
