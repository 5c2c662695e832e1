import type { ExecutionContext } from 'ava';
import request from 'supertest';
import type { App } from '../../app/app.ts';
import type { Config } from '../../app/config.ts';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { testConfig, type TestContext } from '../helpers/app.ts';
import { insertOAuthServer, startFakeOAuth, type FakeOAuth, type FakeOptions } from './fake-servers.ts';

/**
 * Development mode lets the service call the fake servers on 127.0.0.1 (http to loopback).
 * The default timeout is generous (the test machine is shared); the timeout test sets a short one.
 */
export function oauthTestConfig(overrides: Partial<Config['mcpOAuth']> = {}): Config {
  const base = testConfig({ nodeEnv: 'development' });
  return { ...base, mcpOAuth: { ...base.mcpOAuth, outboundTimeoutMs: 5_000, outboundMaxResponseBytes: 16 * 1024, ...overrides } };
}

export const CALLBACK_PATH = '/api/ai/mcp-oauth/callback';

export type Started = { fake: FakeOAuth; serverId: string; token: string };

/** Starts fake servers (closed after the test) and saves an OAuth MCP server on the demo agent. */
export async function startWithServer(t: ExecutionContext<TestContext>, options: FakeOptions = {}): Promise<Started> {
  const fake = await startFakeOAuth(options);
  t.teardown(() => fake.close());
  const serverId = await insertOAuthServer(t.context.t.db.pool, {
    organizationId: ORGANIZATIONS.demoAgency.id,
    agentId: AGENTS.support.id,
    url: fake.resourceUrl,
  });
  const token = await t.context.t.login('owner@demo.test');
  return { fake, serverId, token };
}

export const initiatePath = (serverId: string, agentId: string = AGENTS.support.id) =>
  `/api/ai/agents/${agentId}/mcp-servers/${serverId}/oauth/initiate`;

export function initiate(t: ExecutionContext<TestContext>, started: Started, app?: App) {
  const http = app ? request(app.callback()) : t.context.t.http();
  return http.post(initiatePath(started.serverId)).set('authorization', `Bearer ${started.token}`);
}

export function callback(t: ExecutionContext<TestContext>, query: URLSearchParams, token: string, app?: App) {
  const http = app ? request(app.callback()) : t.context.t.http();
  return http.get(`${CALLBACK_PATH}?${query.toString()}`).set('authorization', `Bearer ${token}`);
}
