import test from 'ava';
import type { Outcome } from '../../fuzz/engine.ts';
import { siblingChangesNotByItsAgency } from '../../fuzz/workspaces.ts';

const SIBLING = '01900000-0000-7000-8000-0000000000f1';
const CHANGED = ['business_plan_periods.organization_id (-0 +1: was -; now (...))', 'agents.organization_id (-1 +0: was (...); now -)'];

const move = (principal: string, status: number, businessId = SIBLING): Outcome => ({
  index: 1,
  request: {
    operation: 'PUT /api/agency/businesses/{businessId}/plan',
    kind: 'valid',
    principal,
    method: 'PUT',
    target: `/api/agency/businesses/${businessId}/plan`,
    headers: {},
  },
  response: { status, headers: {}, text: '{}' } as Outcome['response'],
  findings: [],
});

test("a sibling's plan period changed by its agency's 200 move is excused, its other tables are not", (t) => {
  t.deepEqual(siblingChangesNotByItsAgency(CHANGED, [move('owner@demo.test', 200)], SIBLING, ['owner@demo.test']), [CHANGED[1]]);
});

test("a sibling's plan period stays a problem without a move by its agency's staff", (t) => {
  t.deepEqual(siblingChangesNotByItsAgency(CHANGED, [], SIBLING, ['owner@demo.test']), CHANGED);
  t.deepEqual(siblingChangesNotByItsAgency(CHANGED, [move('owner@bakery.test', 200)], SIBLING, ['owner@demo.test']), CHANGED);
  t.deepEqual(siblingChangesNotByItsAgency(CHANGED, [move('owner@demo.test', 403)], SIBLING, ['owner@demo.test']), CHANGED);
  t.deepEqual(
    siblingChangesNotByItsAgency(CHANGED, [move('owner@demo.test', 200, '01900000-0000-7000-8000-0000000000f2')], SIBLING, [
      'owner@demo.test',
    ]),
    CHANGED,
  );
});

test("a sibling's plan and updated_at written by its agency's move are excused; the rest of its organization row is not", (t) => {
  const plan = 'organizations.plan_id (-1 +1: was {"plan_id": "a", "updated_at": "t1"}; now {"plan_id": "b", "updated_at": "t2"})';
  const renamed = 'organizations.id (-1 +1: was {"name": "Florist"}; now {"name": "Renamed"})';
  t.deepEqual(siblingChangesNotByItsAgency([plan, renamed], [move('owner@demo.test', 200)], SIBLING, ['owner@demo.test']), [renamed]);
  t.deepEqual(siblingChangesNotByItsAgency([plan], [move('owner@bakery.test', 200)], SIBLING, ['owner@demo.test']), [plan]);
});
