import anyTest from 'ava';
import { signIn, waitForReports, withDashboard } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);

test.serial(
  'the projection chart draws the monthly budget line and its status when a budget exists, and nothing without one',
  async (t) => {
    const token = await t.context.t.login('owner@demo.test');
    const budgetApi = () => t.context.t.http().put('/api/ai/org-usage/budget').set('authorization', `Bearer ${token}`);

    const before = await t.context.open();
    await signIn(before.page, t.context.origin, 'owner@demo.test');
    await waitForReports(before.page);
    t.is(await before.page.locator('#panel-projection [data-budget-status]').count(), 0);
    t.false((await before.page.locator('#panel-projection .u-legend').innerText()).includes('Monthly budget'));

    for (const limit of [1, 1_000_000]) {
      const { body: budget } = await budgetApi().send({ monthlyLimitUsd: limit }).expect(200);
      const { page } = await t.context.open();
      await signIn(page, t.context.origin, 'owner@demo.test');
      await waitForReports(page);
      const line = page.locator('#panel-projection [data-budget-status]');
      t.is(await line.getAttribute('data-budget-status'), budget.status);
      t.is(await line.getAttribute('data-budget-limit'), String(limit));
      t.regex(
        await line.innerText(),
        new RegExp(
          `Budget \\$${limit.toLocaleString('en-US')}\\.00 a month: ${budget.status === 'ok' ? 'on track' : budget.status === 'at_risk' ? 'at risk' : 'exceeded'}`,
        ),
      );
      t.true((await page.locator('#panel-projection .u-legend').innerText()).includes('Monthly budget'));
    }
    t.not((await budgetApi().send({ monthlyLimitUsd: 1 }).expect(200)).body.status, 'ok', 'a $1 limit is spent by the demo month');
  },
);
