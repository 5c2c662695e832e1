import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { ORGANIZATIONS, PLANS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

const ROUNDS = 200;

/**
 * Guard 1 ("turn the flag on") and Guard 2 ("deactivate the last active public plan") each
 * pass alone from the starting state, but not both: whichever commits second must see the
 * other's change. Both requests go through the app at once, over a pool of 20 connections.
 */
test('under concurrent flag-on and last-plan deactivation the invariant holds after every round', async (t) => {
  const db = t.context.t.db.pool;
  const agency = ORGANIZATIONS.demoAgency.id;
  const token = await t.context.t.login('owner@demo.test');
  // One listening server and keep-alive connections (fetch), so each round costs two requests only.
  const server = t.context.t.app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  const patch = (path: string, body: object) =>
    fetch(`${base}${path}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => {
      await response.arrayBuffer();
      return response;
    });
  const broken: number[] = [];
  const statuses = new Set<number>();
  const outcomes = { flagWon: 0, deactivationWon: 0 };

  for (let round = 0; round < ROUNDS; round++) {
    await db.query(sql.unsafe`UPDATE organizations SET allow_business_registration = false WHERE id = ${agency}`);
    await db.query(sql.unsafe`
      UPDATE plans SET is_active = (id = ${PLANS.starter.id}), is_public = true WHERE organization_id = ${agency}`);
    const [flag, plan] = await Promise.all([
      patch('/organization/my', { allowBusinessRegistration: true }),
      patch(`/plans/${PLANS.starter.id}`, { isActive: false }),
    ]);
    statuses.add(flag.status).add(plan.status);
    if (flag.status === 200 && plan.status === 409) outcomes.flagWon++;
    if (flag.status === 409 && plan.status === 200) outcomes.deactivationWon++;
    const holds = await db.oneFirst(sql.type(z.object({ holds: z.boolean() }))`
      SELECT NOT o.allow_business_registration
             OR EXISTS (SELECT 1 FROM plans p WHERE p.organization_id = o.id AND p.is_active AND p.is_public) AS holds
      FROM organizations o WHERE o.id = ${agency}`);
    if (!holds) broken.push(round);
  }

  t.log(`rounds: ${ROUNDS}, flag won: ${outcomes.flagWon}, deactivation won: ${outcomes.deactivationWon}, broken: ${broken.length}`);
  t.deepEqual(broken, [], 'rounds after which the flag was on with no active public plan');
  t.deepEqual(
    [...statuses].filter((status) => status !== 200 && status !== 409),
    [],
  );
  // Exactly one of the two requests wins each round.
  t.is(outcomes.flagWon + outcomes.deactivationWon, ROUNDS);
});
