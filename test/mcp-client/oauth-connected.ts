import type { ExecutionContext } from 'ava';
import type { TestContext } from '../helpers/app.ts';
import { callback, initiate, startWithServer, type Started } from '../mcp-oauth/context.ts';
import type { FakeOAuth, FakeOptions } from '../mcp-oauth/fake-servers.ts';

/** An OAuth MCP server of the demo support agent, authorized through initiate and callback. */
export async function connectedOAuthServer(t: ExecutionContext<TestContext>, options: FakeOptions = {}): Promise<Started> {
  const started = await startWithServer(t, options);
  const initiated = await initiate(t, started).expect(200);
  await callback(t, await started.fake.authorize(initiated.body.authorizationUrl), started.token).expect(200);
  return started;
}

export const refreshRequests = (started: { fake: FakeOAuth }) =>
  started.fake.tokenRequests.filter((request) => request.form.get('grant_type') === 'refresh_token');
