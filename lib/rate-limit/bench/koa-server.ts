// Child process for the Koa overhead benchmark: a bare route, the bare route sending the two RateLimit
// headers as constants (what the headers alone cost on the wire), or the route behind rateLimit(MemoryStore).
// Prints the port once listening; exits when stdin closes. With a file path as second argument, the line
// `profile` on stdin starts the V8 CPU profiler and `stop` writes the profile there, then prints `done`.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
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
const profilePath = process.argv[3];
if (profilePath !== undefined) {
  const session = new Session();
  session.connect();
  process.stdin.on('data', (chunk: Buffer) => {
    const command = chunk.toString().trim();
    if (command === 'profile') {
      void session
        .post('Profiler.enable')
        .then(() => session.post('Profiler.start'))
        .then(() => process.stdout.write('profiling\n'));
    }
    if (command === 'stop') {
      void session.post('Profiler.stop').then(async ({ profile }) => {
        await writeFile(profilePath, JSON.stringify(profile));
        process.stdout.write('done\n');
      });
    }
  });
}
process.stdin.on('close', () => server.close(() => process.exit(0)));
process.stdin.resume();
