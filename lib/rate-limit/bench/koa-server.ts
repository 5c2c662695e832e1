// Child process for the Koa overhead benchmark: a bare route, the bare route sending the two RateLimit
// headers as constants (what the headers alone cost on the wire), or the route behind rateLimit(MemoryStore).
// Prints the port once listening; exits when stdin closes.
import Koa from 'koa';
import { rateLimit } from '../src/index.ts';

const mode = process.argv[2];
const limited = mode === 'limited';
const app = new Koa();
app.proxy = true;
app.maxIpsCount = 1;
// A limit the load never reaches, so every request takes the allowed path (counted, headers set, next()).
if (limited) app.use(rateLimit({ windowMs: '1s', limit: 1_000_000_000, identifierType: 'ip' }));
if (mode === 'headers') {
  app.use(async (ctx, next) => {
    ctx.set('RateLimit-Policy', '"default";q=1000000000;w=1');
    ctx.set('RateLimit', '"default";r=999999999;t=1');
    await next();
  });
}
app.use((ctx) => {
  ctx.body = { ok: true };
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.stdin.on('close', () => server.close(() => process.exit(0)));
process.stdin.resume();
