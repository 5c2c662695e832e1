import { Writable } from 'node:stream';
import type { ExecutionContext, TestFn } from 'ava';
import { pino } from 'pino';
import request from 'supertest';
import { createApp, type App, type CreateAppOptions } from '../../app/app.ts';
import { seedDemo } from '../../seeds/demo.ts';
import { DEMO_PASSWORD } from '../../seeds/demo-fixtures.ts';
import { testConfig } from './config.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export { TEST_CREDENTIALS_KEY, TEST_JWT_SECRET, testConfig } from './config.ts';

/** Log lines the app wrote, parsed; tests read them to check what is (and is not) logged. */
export class CapturedLogs {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  get entries(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export type TestApp = {
  db: TestDatabase;
  app: App;
  logs: CapturedLogs;
  http: () => ReturnType<typeof request>;
  /** Logs in with email and the demo password (or `password`) and returns the access token. */
  login(email: string, password?: string, type?: 'user' | 'client'): Promise<string>;
  /** Another app over the same database, for example with a different clock or config. */
  rebuild(options?: Partial<CreateAppOptions>): App;
};

export type TestContext = { t: TestApp };

/**
 * Gives each test file its own database (cloned from the migrated template), the demo
 * fixtures and an app with captured logs. Rate limits are off unless `rateLimits: true`. Files call it once: `const test = withTestApp(anyTest)`.
 */
export function withTestApp(
  anyTest: TestFn,
  options: { seed?: boolean; app?: Partial<CreateAppOptions>; rateLimits?: boolean } = {},
): TestFn<TestContext> {
  const test = anyTest as TestFn<TestContext>;
  test.before(async (context) => {
    const db = await createTestDatabase();
    if (options.seed !== false) await seedDemo(db.pool);
    const logs = new CapturedLogs();
    const build = (extra: Partial<CreateAppOptions> = {}) =>
      createApp({
        db: db.pool,
        config: testConfig(),
        logger: pino({ level: 'info' }, logs.stream),
        // Files log in many times from one IP; only the rate-limit tests keep the limits on.
        ...(options.rateLimits ? {} : { rateLimits: false }),
        ...options.app,
        ...extra,
      });
    const app = build();
    const server = app.callback();
    context.context.t = {
      db,
      app,
      logs,
      http: () => request(server),
      rebuild: build,
      async login(email, password = DEMO_PASSWORD, type = 'user') {
        const response = await request(server).post(`/api/identity/auth/${type}/login`).send({ email, password }).expect(200);
        return (response.body as { accessToken: string }).accessToken;
      },
    };
  });
  test.after.always(async (context: ExecutionContext<TestContext>) => {
    await context.context.t?.db.drop();
  });
  return test;
}
