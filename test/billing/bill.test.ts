import anyTest from 'ava';
import request from 'supertest';
import { uuidv7 } from 'uuidv7';
import { DEMO_PASSWORD, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { usageEvent } from '../ingest/support.ts';
import { as, business, owner, type T } from './support.ts';

// The agency's bill (docs/billing.md, "The bill"), checked to the cent against lines computed here
// from the usage rows this file writes through the events API.
const test = withTestApp(anyTest);

/** An app over the file's database whose clock reads `at`. */
const at = (t: T, instant: string) => {
  const server = t.context.t.rebuild({ clock: () => new Date(instant) }).callback();
  return () => request(server);
};

/** A decimal text of at most 10 decimals as an integer of 1e-10 dollars. */
const units = (cost: string) => {
  const [whole, fraction = ''] = cost.split('.');
  return BigInt(whole!) * 10n ** 10n + BigInt(fraction.padEnd(10, '0'));
};
/** Half-up to cents of an amount in `scale` units (non-negative). */
const cents = (amount: bigint, scale: bigint) => Number((amount + scale / 200n) / (scale / 100n));

type Row = { costUsd: string; createdAt: string; source?: 'system' | 'byok' };

/** The expected line of a business: its plan's price and markup, its platform-key usage in [from, to). */
function expectedLine(rows: Row[], month: string, price: number, markup: number) {
  const inMonth = rows.filter((row) => row.createdAt.startsWith(month) && (row.source ?? 'system') === 'system');
  const cost = inMonth.reduce((sum, row) => sum + units(row.costUsd), 0n);
  const usageCostCents = cents(cost, 10n ** 10n);
  const usageBilledCents = cents(cost * BigInt(100 + markup), 10n ** 12n);
  const priceCents = Math.round(price * 100);
  return { priceCents, usageCostCents, usageBilledCents, totalCents: priceCents + usageBilledCents };
}

test.serial("a month's bill: each business's plan price, platform usage of that UTC month, markup and total, to the cent", async (t) => {
  const october = at(t, '2026-10-10T12:00:00.000Z');
  const staff = await owner(t);
  const newPlan = async (price: number, markup: number) =>
    (
      await as(t, staff, undefined, october)
        .post('/api/plans', {
          name: `P ${price}/${markup}`,
          isPublic: true,
          isActive: true,
          priceUsdPerMonth: price,
          usageMarkupPercent: markup,
        })
        .expect(201)
    ).body.id as string;
  const [basic, premium, free] = [await newPlan(49.99, 30), await newPlan(100, 15), await newPlan(0, 0)];
  const alpha = await business(t, `Alpha ${uuidv7().slice(-4)}`, basic, october);
  const beta = await business(t, `Beta, "the" shop ${uuidv7().slice(-4)}`, basic, october);
  const gamma = await business(t, `Gamma ${uuidv7().slice(-4)}`, free, october);
  // Beta moves to the premium plan mid-month: October is billed on the plan it ends the month on.
  await as(t, staff, undefined, at(t, '2026-10-20T08:00:00.000Z'))
    .put(`/api/agency/businesses/${beta.id}/plan`, { planId: premium })
    .expect(200);

  const usage: Record<string, Row[]> = {
    [alpha.id]: [
      { costUsd: '0.1234567891', createdAt: '2026-10-10T13:00:00.000Z' },
      { costUsd: '1.005', createdAt: '2026-10-15T09:30:00.000Z' },
      // The month's last millisecond is October's; the next one is November's.
      { costUsd: '2.5', createdAt: '2026-10-31T23:59:59.999Z' },
      { costUsd: '7', createdAt: '2026-11-01T00:00:00.000Z' },
      // BYOK usage is the business's own bill.
      { costUsd: '50', createdAt: '2026-10-12T10:00:00.000Z', source: 'byok' },
    ],
    [beta.id]: [
      { costUsd: '3.3333333333', createdAt: '2026-10-11T00:00:00.000Z' },
      { costUsd: '0.0000000001', createdAt: '2026-10-25T00:00:00.000Z' },
    ],
    // Exactly half a cent rounds up.
    [gamma.id]: [{ costUsd: '0.125', createdAt: '2026-10-20T00:00:00.000Z' }],
  };
  for (const [organizationId, rows] of Object.entries(usage)) {
    await as(t, staff, organizationId)
      .post('/api/ai/org-usage/events', {
        events: rows.map((row) => usageEvent({ costUsd: Number(row.costUsd), createdAt: row.createdAt, source: row.source ?? 'system' })),
      })
      .expect(200);
  }

  const bill = await as(t, staff, undefined, at(t, '2026-11-02T00:00:00.000Z')).get('/api/agency/billing?month=2026-10').expect(200);
  t.like(bill.body, { month: '2026-10', final: true, currency: 'USD' });
  const expected = {
    [alpha.id]: { planId: basic, ...expectedLine(usage[alpha.id]!, '2026-10', 49.99, 30), markup: 30 },
    [beta.id]: { planId: premium, ...expectedLine(usage[beta.id]!, '2026-10', 100, 15), markup: 15 },
    [gamma.id]: { planId: free, ...expectedLine(usage[gamma.id]!, '2026-10', 0, 0), markup: 0 },
  };
  const ours = (bill.body.lines as { businessId: string }[]).filter((line) => line.businessId in expected);
  t.is(ours.length, 3);
  for (const line of ours) {
    const want = expected[line.businessId]!;
    t.like(line, {
      planId: want.planId,
      planPriceUsd: want.priceCents / 100,
      usageCostUsd: want.usageCostCents / 100,
      usageMarkupPercent: want.markup,
      usageBilledUsd: want.usageBilledCents / 100,
      totalUsd: want.totalCents / 100,
    });
  }
  // Spot checks of the rounding: 3.6284567891 -> 3.63; x 1.3 = 4.71699... -> 4.72; 0.125 -> 0.13.
  t.like(
    ours.find((line) => line.businessId === alpha.id),
    { usageCostUsd: 3.63, usageBilledUsd: 4.72, totalUsd: 54.71 },
  );
  t.like(
    ours.find((line) => line.businessId === gamma.id),
    { usageCostUsd: 0.13, usageBilledUsd: 0.13 },
  );
  // Totals are the sums of the rounded lines (of every business of the agency on the bill).
  type Line = { planPriceUsd: number; usageCostUsd: number; usageBilledUsd: number; totalUsd: number };
  const sum = (pick: (line: Line) => number) =>
    (bill.body.lines as Line[]).reduce((total, line) => total + Math.round(pick(line) * 100), 0) / 100;
  t.deepEqual(bill.body.totals, {
    planPriceUsd: sum((line) => line.planPriceUsd),
    usageCostUsd: sum((line) => line.usageCostUsd),
    usageBilledUsd: sum((line) => line.usageBilledUsd),
    totalUsd: sum((line) => line.totalUsd),
  });

  // November, while it runs: not final; Alpha's midnight row is there.
  const running = await as(t, staff, undefined, at(t, '2026-11-15T00:00:00.000Z')).get('/api/agency/billing').expect(200);
  t.like(running.body, { month: '2026-11', final: false });
  t.like(
    running.body.lines.find((line: { businessId: string }) => line.businessId === alpha.id),
    { usageCostUsd: 7, usageBilledUsd: 9.1, totalUsd: 59.09 },
  );
  // October asked while it ran (before Beta moved): Beta was on the basic plan then.
  const midOctober = await as(t, staff, undefined, at(t, '2026-10-15T00:00:00.000Z')).get('/api/agency/billing?month=2026-10').expect(200);
  t.like(midOctober.body, { final: false });
  t.like(
    midOctober.body.lines.find((line: { businessId: string }) => line.businessId === beta.id),
    { planId: basic, planPriceUsd: 49.99, usageMarkupPercent: 30 },
  );

  // A later price change does not change a closed month.
  await as(t, staff).patch(`/api/plans/${premium}`, { priceUsdPerMonth: 500 }).expect(200);
  const again = await as(t, staff, undefined, at(t, '2026-12-02T00:00:00.000Z')).get('/api/agency/billing?month=2026-10').expect(200);
  t.deepEqual(again.body.lines, bill.body.lines);

  // CSV: the same lines, RFC 4180.
  const csv = await as(t, staff, undefined, at(t, '2026-11-02T00:00:00.000Z'))
    .get('/api/agency/billing?month=2026-10')
    .set('accept', 'text/csv')
    .expect(200);
  t.regex(csv.headers['content-type']!, /^text\/csv/);
  const lines = csv.text.split('\r\n');
  t.is(lines[0], 'businessId,businessName,planId,planName,planPriceUsd,usageCostUsd,usageMarkupPercent,usageBilledUsd,totalUsd');
  t.is(lines.at(-1), '');
  const betaLine = bill.body.lines.find((line: { businessId: string }) => line.businessId === beta.id);
  const quoted = `"${betaLine.businessName.replaceAll('"', '""')}"`;
  t.true(
    lines.includes(
      [
        beta.id,
        quoted,
        premium,
        betaLine.planName,
        betaLine.planPriceUsd.toFixed(2),
        betaLine.usageCostUsd.toFixed(2),
        betaLine.usageMarkupPercent,
        betaLine.usageBilledUsd.toFixed(2),
        betaLine.totalUsd.toFixed(2),
      ].join(','),
    ),
    csv.text,
  );
  t.is(lines.length, bill.body.lines.length + 2);
});

test('the bill is the agency’s alone: another agency sees none of its businesses; a business, a member or a bad month are refused', async (t) => {
  const shop = await business(t, 'Private Shop');
  const other = await t.context.t.login(USERS.otherOwner.email);
  const theirs = await as(t, other).get('/api/agency/billing').expect(200);
  t.false(theirs.body.lines.some((line: { businessId: string }) => line.businessId === shop.id));
  t.deepEqual((await as(t, shop.token).get('/api/agency/billing').expect(403)).body, { statusCode: 403, message: 'Forbidden' });
  t.deepEqual(
    (
      await as(t, await owner(t), shop.id)
        .get('/api/agency/billing')
        .expect(403)
    ).body,
    { statusCode: 403, message: 'Forbidden' },
  );
  const member = await t.context.t.login(USERS.member.email);
  await as(t, member).get('/api/agency/billing').expect(403);
  for (const month of ['2026-13', '26-01', '2026-1', '1999-12']) {
    const refused = await as(t, await owner(t))
      .get(`/api/agency/billing?month=${month}`)
      .expect(400);
    t.deepEqual(
      refused.body.errors.map((e: { path: string[] }) => e.path),
      [['query', 'month']],
    );
  }
});

test("an ended month's bill is kept 5 minutes on the app's clock; the running month's is read anew on every request", async (t) => {
  let now = new Date('2027-03-10T12:00:00.000Z');
  const server = t.context.t.rebuild({ clock: () => now }).callback();
  const http = () => request(server);
  // Signed in on this app's clock, again after each jump (an access token lives 15 minutes).
  const signIn = async () =>
    (await http().post('/api/identity/auth/user/login').send({ email: USERS.owner.email, password: DEMO_PASSWORD }).expect(200)).body
      .accessToken as string;
  let staff = await signIn();
  const planId = (
    await as(t, staff, undefined, http)
      .post('/api/plans', {
        name: `Kept ${uuidv7().slice(-4)}`,
        isPublic: true,
        isActive: true,
        priceUsdPerMonth: 10,
        usageMarkupPercent: 0,
      })
      .expect(201)
  ).body.id as string;
  const shop = await business(t, `Kept Shop ${uuidv7().slice(-4)}`, planId, http);
  const spend = (costUsd: number, createdAt: string) =>
    as(t, staff, shop.id, http)
      .post('/api/ai/org-usage/events', { events: [usageEvent({ costUsd, createdAt, source: 'system' })] })
      .expect(200);
  const lineOf = async (month: string) =>
    (
      (await as(t, staff, undefined, http).get(`/api/agency/billing?month=${month}`).expect(200)).body.lines as {
        businessId: string;
        usageCostUsd: number;
      }[]
    ).find((line) => line.businessId === shop.id)!.usageCostUsd;

  await spend(1, '2027-03-05T00:00:00.000Z');
  t.is(await lineOf('2027-03'), 1, 'the running month');
  await spend(2, '2027-03-06T00:00:00.000Z');
  t.is(await lineOf('2027-03'), 3, 'the running month is never kept');

  now = new Date('2027-04-02T00:00:00.000Z');
  staff = await signIn();
  t.is(await lineOf('2027-03'), 3, 'March has ended');
  // Usage imported late into March: the kept bill answers until its 5 minutes are over.
  await spend(4, '2027-03-07T00:00:00.000Z');
  now = new Date(now.getTime() + 5 * 60_000);
  t.is(await lineOf('2027-03'), 3);
  now = new Date(now.getTime() + 1);
  t.is(await lineOf('2027-03'), 7);
});
