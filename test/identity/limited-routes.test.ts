import anyTest from 'ava';
import { fullPath } from '../../app/core/route.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest, { seed: false });

/** The "Limits per endpoint" table of the interface document, copied by hand. */
const LIMITED = [
  'POST /api/identity/auth/user/check-email',
  'POST /api/identity/auth/user/register',
  'POST /api/identity/auth/user/verify-email',
  'POST /api/identity/auth/user/login',
  'GET /api/identity/auth/user/google/callback',
  'POST /api/identity/auth/user/change-password',
  'POST /api/identity/auth/client/register',
  'POST /api/identity/auth/client/verify-email',
  'POST /api/identity/auth/client/login',
  'GET /api/identity/auth/client/google/callback',
  'POST /api/identity/auth/client/change-password',
  'POST /api/identity/auth/refresh',
  'POST /api/notifications/sms/test',
];

test('every route of the rate-limit table is declared at exactly its method and path', (t) => {
  const app = t.context.t.rebuild({
    config: testConfig({
      nodeEnv: 'development',
      google: {
        clientId: 'id',
        clientSecret: 'secret',
        authorizationUrl: 'https://a.test/a',
        tokenUrl: 'https://a.test/t',
        userinfoUrl: 'https://a.test/u',
      },
    }),
  });
  const mounted = new Set(app.routes.map((route) => `${route.method} ${fullPath(route)}`));
  t.deepEqual(
    LIMITED.filter((route) => !mounted.has(route)),
    [],
  );
});
