import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';

const test = withTestApp(anyTest);

test('GET / leads to the console and GET /api to the API docs, saying where in the body too', async (t) => {
  const http = t.context.t.http;
  const root = await http().get('/').expect(302);
  t.is(root.headers.location, '/dashboard');
  t.is(root.text, 'Redirecting to /dashboard.');
  for (const path of ['/api', '/api/']) {
    const api = await http().get(path).expect(302);
    t.is(api.headers.location, '/api/docs', path);
  }
  const browser = await http().get('/api').set('accept', 'text/html').expect(302);
  t.is(browser.headers.location, '/api/docs');
  t.is((await http().head('/').expect(302)).headers.location, '/dashboard');
  await http().get('/api/docs').expect(200);
});

test('other methods and other paths are answered as before the front doors', async (t) => {
  const http = t.context.t.http;
  t.is((await http().post('/').send({})).status, 404);
  t.is((await http().post('/api').send({})).status, 404);
  t.is((await http().get('/apiary')).status, 404);
  t.is((await http().get('/api/nothing-here')).status, 404);
});
