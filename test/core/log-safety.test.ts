import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { listening, rawExchange } from './raw-http.ts';

const test = withTestApp(anyTest);

/** Every spelling of `secret` a logger might print: text, byte list, hex, base64. */
function encodings(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, 'utf8');
  return {
    text: secret,
    'JSON-escaped text': JSON.stringify(secret).slice(1, -1),
    'byte list': [...bytes].join(','),
    'spaced byte list': [...bytes].join(', '),
    hex: bytes.toString('hex'),
    HEX: bytes.toString('hex').toUpperCase(),
    base64: bytes.toString('base64').replace(/=+$/, ''),
    base64url: bytes.toString('base64url'),
  };
}

function assertNotLogged(t: { false(value: boolean, message: string): void }, logs: string, secrets: Record<string, string>) {
  for (const [name, secret] of Object.entries(secrets)) {
    for (const [encoding, spelled] of Object.entries(encodings(secret))) {
      t.false(logs.includes(spelled), `${name} is in the log as ${encoding}`);
    }
  }
}

test('requests Node refuses are answered 4xx/501 and leave no header or body byte in the log', async (t) => {
  const port = await listening(t.context.t.app, t.teardown);
  const secrets = {
    authorization: 'Bearer raw-bearer-secret-4711',
    cookie: 'sid=raw-cookie-secret-0815',
    password: 'raw-body-password-1337',
  };
  const headers = `Authorization: ${secrets.authorization}\r\nCookie: ${secrets.cookie}\r\n`;
  const body = JSON.stringify({ email: 'owner@demo.test', password: secrets.password });
  const malformed = [
    `POST /api/identity/auth/user/login HTTP/1.1\r\nHost: x\r\n${headers}Bad Header Line\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    `POST /api/identity/auth/user/login HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    `POST /api/identity/auth/user/login HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: abc\r\n\r\n${body}`,
    `POST /api/identity/auth/user/login HTTP/1.1\r\nHost: x\r\n${headers}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    `BREW /api/identity/auth/user/login HTTP/1.1\r\nHost: x\r\n${headers}\r\n${body}`,
    `POST /api/identity/auth/user/login HTTP/1.1\r\nHost: x\r\n${headers}X-Big: ${'a'.repeat(20_000)}\r\n\r\n${body}`,
    `POST /api/identity/auth/user/login HTTP/9.9\r\nHost: x\r\n${headers}\r\n${body}`,
  ];
  for (const bytes of malformed) {
    const response = await rawExchange(port, bytes);
    t.true([400, 413, 431, 501].includes(response.status), `answered ${response.status}`);
    const answer = JSON.parse(response.body) as { statusCode: number; message: string };
    t.is(answer.statusCode, response.status);
  }
  const logs = t.context.t.logs.text();
  t.true(logs.includes('malformed request refused'));
  assertNotLogged(t, logs, secrets);
});

test('requests the app answers log no Authorization, Cookie or secret body field, including malformed JSON', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const login = await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'owner@demo.test', password: 'demo-password-1' })
    .expect(200);
  await t.context.t.http().post('/api/identity/auth/refresh').send({ refreshToken: login.body.refreshToken }).expect(200);
  await t.context.t
    .http()
    .get('/api/identity/me')
    .set('authorization', `Bearer ${token}`)
    .set('cookie', 'sid=app-cookie-secret-77')
    .expect(200);
  await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .set('content-type', 'application/json')
    .send('{"email":"owner@demo.test","password":"half-json-password-99"')
    .expect(400);
  await t.context.t
    .http()
    .post('/api/identity/auth/user/login')
    .send({ email: 'owner@demo.test', password: 'nul\u0000password-42' })
    .expect(400);
  const logs = t.context.t.logs.text();
  assertNotLogged(t, logs, {
    token,
    refreshToken: login.body.refreshToken as string,
    cookie: 'app-cookie-secret-77',
    password: 'demo-password-1',
    malformed: 'half-json-password-99',
    nul: 'password-42',
  });
});

test('the app logger censors secret fields and reduces errors to type, message, code and stack', (t) => {
  const logger = t.context.t.app.deps.logger;
  const error = Object.assign(new Error('parse failed'), {
    code: 'HPE_X',
    rawPacket: Buffer.from('Authorization: Bearer packet-secret-31'),
    sql: 'INSERT INTO users (password_hash) VALUES ($1)',
    values: ['values-secret-32'],
    body: '{"password":"body-secret-33"}',
  });
  logger.error(
    {
      err: error,
      request: { headers: { authorization: 'Bearer header-secret-34' }, body: { newPassword: 'field-secret-35', code: '123456' } },
    },
    'probe',
  );
  const line = t.context.t.logs.entries.find((entry) => entry.msg === 'probe') as Record<string, Record<string, unknown>>;
  t.is(line.err!.message, 'parse failed');
  t.is(line.err!.code, 'HPE_X');
  t.deepEqual(Object.keys(line.err!).sort(), ['code', 'message', 'stack', 'type']);
  assertNotLogged(t, t.context.t.logs.text(), {
    packet: 'packet-secret-31',
    values: 'values-secret-32',
    body: 'body-secret-33',
    header: 'header-secret-34',
    field: 'field-secret-35',
  });
});
