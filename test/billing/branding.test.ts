import anyTest from 'ava';
import { checkBudget } from '../../app/analytics/budget/checker.ts';
import { openMessageBody } from '../../app/notifications/sealing.ts';
import { listOutboxMessagesTo } from '../../sql/notification-outbox.ts';
import { USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { usageEvent } from '../ingest/support.ts';
import { as, business, owner, type T } from './support.ts';

// White label (docs/billing.md, "Branding").
const test = withTestApp(anyTest);

const PRODUCT = { productName: 'Agents', primaryColor: '#1d4ed8', logoUrl: null };
const BRAND = {
  productName: 'Acme AI',
  primaryColor: '#0F766E',
  logoUrl: 'https://cdn.acme.example/logo.svg',
  supportEmail: 'Help@Acme.example',
  hosts: ['console.acme.example', 'ai.acme.example'],
};

const putBrand = async (t: T, body: object = BRAND, status = 200) =>
  as(t, await owner(t))
    .put('/api/organization/my/branding', body)
    .expect(status);

test.serial(
  'an agency sets its brand; it reads it back, its businesses read it as theirs, and others keep the product’s own',
  async (t) => {
    const put = await putBrand(t);
    t.deepEqual(put.body, {
      ...BRAND,
      primaryColor: '#0f766e',
      supportEmail: 'help@acme.example',
      hosts: ['ai.acme.example', 'console.acme.example'],
    });
    t.deepEqual(
      (
        await as(t, await owner(t))
          .get('/api/organization/my/branding')
          .expect(200)
      ).body,
      put.body,
    );
    const shop = await business(t, 'Branded Shop');
    t.deepEqual((await as(t, shop.token).get('/api/organization/my/branding').expect(200)).body, put.body);
    const other = await t.context.t.login(USERS.otherOwner.email);
    t.deepEqual((await as(t, other).get('/api/organization/my/branding').expect(200)).body, {
      ...PRODUCT,
      supportEmail: null,
      hosts: [],
    });
    // A business cannot set one (its agency's applies).
    t.is((await as(t, shop.token).put('/api/organization/my/branding', BRAND)).status, 403);
  },
);

test.serial('the public brand follows the request’s Host; an unknown host gets the product’s own', async (t) => {
  await putBrand(t);
  const branded = await t.context.t.http().get('/api/public/branding').set('host', 'Console.Acme.Example').expect(200);
  t.deepEqual(branded.body, { productName: 'Acme AI', primaryColor: '#0f766e', logoUrl: BRAND.logoUrl });
  const plain = await t.context.t.http().get('/api/public/branding').set('host', 'elsewhere.example').expect(200);
  t.deepEqual(plain.body, PRODUCT);
});

test.serial('a host another agency has is 409 ORGANIZATION.HOST_TAKEN and changes nothing', async (t) => {
  await putBrand(t);
  const other = await t.context.t.login(USERS.otherOwner.email);
  const taken = await as(t, other)
    .put('/api/organization/my/branding', { ...BRAND, productName: 'Other', hosts: ['mine.example', 'ai.acme.example'] })
    .expect(409);
  t.is(taken.body.errorCode, 'ORGANIZATION.HOST_TAKEN');
  t.is((await as(t, other).get('/api/organization/my/branding').expect(200)).body.productName, 'Agents');
  t.is((await t.context.t.http().get('/api/public/branding').set('host', 'mine.example').expect(200)).body.productName, 'Agents');
  // Dropping a host frees it.
  await putBrand(t, { ...BRAND, hosts: ['console.acme.example'] });
  await as(t, other)
    .put('/api/organization/my/branding', { ...BRAND, productName: 'Other', hosts: ['ai.acme.example'] })
    .expect(200);
  await as(t, other)
    .put('/api/organization/my/branding', { ...BRAND, productName: 'Other', hosts: [] })
    .expect(200);
});

test.serial('bodies are validated: name length, #rrggbb, https logos only, at most 5 host names', async (t) => {
  const paths = async (body: object) =>
    ((await putBrand(t, { ...BRAND, ...body }, 400)).body.errors as { path: string[] }[]).map((e) => e.path.join('.'));
  t.deepEqual(await paths({ productName: '' }), ['productName']);
  t.deepEqual(await paths({ productName: 'x'.repeat(61) }), ['productName']);
  t.deepEqual(await paths({ primaryColor: 'teal' }), ['primaryColor']);
  t.deepEqual(await paths({ logoUrl: 'http://cdn.acme.example/logo.svg' }), ['logoUrl']);
  t.deepEqual(await paths({ logoUrl: 'javascript:alert(1)' }), ['logoUrl']);
  t.deepEqual(await paths({ hosts: ['a.example', 'b.example', 'c.example', 'd.example', 'e.example', 'f.example'] }), ['hosts']);
  t.deepEqual(await paths({ hosts: ['https://acme.example/'] }), ['hosts.0']);
  t.deepEqual(await paths({ supportEmail: 'nobody' }), ['supportEmail']);
});

test.serial('mail to a business’s users carries its agency’s product name as From name and in the text', async (t) => {
  await putBrand(t);
  const shop = await business(t, 'Mailed Shop');
  const staff = as(t, await owner(t), shop.id);
  await staff.put('/api/ai/org-usage/budget', { monthlyLimitUsd: 1, alertThresholdsPct: [50] }).expect(200);
  await staff.post('/api/ai/org-usage/events', { events: [usageEvent({ costUsd: 0.6, createdAt: new Date().toISOString() })] }).expect(200);
  await checkBudget(t.context.t.app.deps, shop.id);
  const [alert] = await listOutboxMessagesTo(t.context.t.db.pool, shop.email);
  t.truthy(alert);
  t.is(alert!.template, 'budget-alert');
  const body = openMessageBody(t.context.t.app.deps.config.credentialsKeyring, alert!.id, alert!.sealedBody);
  t.is(body.fromName, 'Acme AI');
  t.true(body.text.endsWith('\n\n— Acme AI'), body.text);
});

test.serial('a session on a business agent’s channel carries the agency’s color for the widget and share page', async (t) => {
  await putBrand(t);
  const shop = await business(t, 'Widget Shop');
  const staff = as(t, await owner(t), shop.id);
  const agent = (await staff.post('/api/ai/agents', { name: 'Desk' }).expect(201)).body.id as string;
  const channel = await staff
    .put(`/api/ai/agents/${agent}/channel`, { enabled: true, allowedOrigins: ['https://shop.example.com'] })
    .expect(200);
  const session = await t.context.t
    .http()
    .post('/api/public/sessions')
    .set('origin', 'https://shop.example.com')
    .send({ publishableKey: channel.body.publishableKey })
    .expect(201);
  t.deepEqual(session.body.brand, { productName: 'Acme AI', primaryColor: '#0f766e' });
});
