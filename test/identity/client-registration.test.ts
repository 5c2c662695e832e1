import anyTest from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { withTestApp } from '../helpers/app.ts';
import { PASSWORD, type T } from './principals.ts';

// Other Agency takes no client registrations in the seed; this file alone switches it.
const test = withTestApp(anyTest);

const registerInto = (t: T, organizationId: string, email: string, name = 'A Stranger') =>
  t.context.t.http().post('/api/identity/auth/client/register').send({ email, password: PASSWORD, name, organizationId });

const clientsNamed = (t: T, email: string) =>
  t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`SELECT count(*)::int AS n FROM users WHERE email = ${email}`);

async function setFlag(t: T, allowClientRegistration: boolean) {
  const auth = `Bearer ${await t.context.t.login('owner@other.test')}`;
  return t.context.t.http().patch('/api/organization/my').set('authorization', auth).send({ allowClientRegistration }).expect(200);
}

test.serial(
  'a client registers itself only into an organization that turned allowClientRegistration on: off (the default) is 403 and creates nobody',
  async (t) => {
    const auth = `Bearer ${await t.context.t.login('owner@other.test')}`;
    const organization = await t.context.t.http().get('/api/organization/my').set('authorization', auth).expect(200);
    t.is(organization.body.allowClientRegistration, false);

    const refused = await registerInto(t, ORGANIZATIONS.otherAgency.id, 'stranger@other.test').expect(403);
    t.deepEqual(refused.body, {
      statusCode: 403,
      errorCode: 'IDENTITY.CLIENT_REGISTRATION_DISABLED',
      message: { en: 'This organization does not accept client registrations.', es: 'Esta organización no admite registros de clientes.' },
    });
    t.is(await clientsNamed(t, 'stranger@other.test'), 0);

    const opened = await setFlag(t, true);
    t.like(opened.body, { id: ORGANIZATIONS.otherAgency.id, allowClientRegistration: true, allowBusinessRegistration: false });
    const registered = await registerInto(t, ORGANIZATIONS.otherAgency.id, 'welcome@other.test').expect(201);
    t.is(registered.body.organizationId, ORGANIZATIONS.otherAgency.id);

    t.false((await setFlag(t, false)).body.allowClientRegistration);
    await registerInto(t, ORGANIZATIONS.otherAgency.id, 'late@other.test').expect(403);
    t.is(await clientsNamed(t, 'late@other.test'), 0);
  },
);

test.serial('an unknown organization is still 404 ORGANIZATION.NOT_FOUND; the flag is a boolean', async (t) => {
  const unknown = await registerInto(t, '01900000-0000-7000-8000-00000000ffff', 'nowhere@other.test').expect(404);
  t.is(unknown.body.errorCode, 'ORGANIZATION.NOT_FOUND');
  const auth = `Bearer ${await t.context.t.login('owner@other.test')}`;
  const wrong = await t.context.t.http().patch('/api/organization/my').set('authorization', auth).send({ allowClientRegistration: 'yes' });
  t.is(wrong.status, 400);
  t.deepEqual(wrong.body.errors[0].path, ['allowClientRegistration']);
});

test.serial("a registering person's name is one line: a newline, a C1 control, a line separator or a bidi override is 400", async (t) => {
  for (const name of ['Support Lead\nACTION NEEDED: approve at https://evil.test/login', 'a\u0085b', 'a\u2028b', 'evil\u202Egnp.exe']) {
    const response = await registerInto(t, ORGANIZATIONS.demoAgency.id, 'lines@demo.test', name).expect(400);
    t.deepEqual(response.body.errors[0].path, ['name'], JSON.stringify(name));
  }
  t.is(await clientsNamed(t, 'lines@demo.test'), 0);
  await registerInto(t, ORGANIZATIONS.demoAgency.id, 'lines@demo.test', 'Zoë Ünal 😀').expect(201);
});
