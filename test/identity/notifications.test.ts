import anyTest from 'ava';
import request from 'supertest';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { lastMessageTo } from './principals.ts';

const test = withTestApp(anyTest);

test('the SMS test endpoint does not exist outside development', async (t) => {
  const response = await t.context.t.http().post('/api/notifications/sms/test').send({ to: '+34600111222' }).expect(404);
  t.is(response.body.statusCode, 404);
  const production = request(t.context.t.rebuild({ config: testConfig({ nodeEnv: 'production' }) }).callback());
  await production.post('/api/notifications/sms/test').send({ to: '+34600111222' }).expect(404);
});

test('in development the SMS test goes through the transport into the outbox and logs a masked recipient', async (t) => {
  const development = request(t.context.t.rebuild({ config: testConfig({ nodeEnv: 'development' }) }).callback());
  const response = await development.post('/api/notifications/sms/test').send({ to: '+34600111222', message: 'hello there' }).expect(202);
  t.is(response.body.channel, 'sms');
  const message = await lastMessageTo(t, '+34600111222');
  t.deepEqual({ template: message.template, text: message.text }, { template: 'sms-test', text: 'hello there' });
  const line = t.context.t.logs.entries.find((entry) => entry.messageId === response.body.messageId);
  t.like(line, { channel: 'sms', template: 'sms-test', to: '+34*****1222' });
  t.false(t.context.t.logs.text().includes('hello there'));
});

test('the SMS test validates the phone number', async (t) => {
  const development = request(t.context.t.rebuild({ config: testConfig({ nodeEnv: 'development' }) }).callback());
  const response = await development.post('/api/notifications/sms/test').send({ to: '600111222' }).expect(400);
  t.deepEqual(response.body.errors, [{ path: ['to'], message: 'must be an E.164 phone number (+ and 7 to 15 digits)' }]);
});
