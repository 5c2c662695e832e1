import type { ExecutionContext } from 'ava';
import request from 'supertest';
import type { App } from '../../app/app.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import type { TestContext } from '../helpers/app.ts';
import type { Peer } from './mcp-peers.ts';

/** Calls of the agent MCP-server routes shared by the tool discovery tests. */
export type T = ExecutionContext<TestContext>;
export const agent = AGENTS.support.id;
export const serversPath = `/api/ai/agents/${agent}/mcp-servers`;

export async function owner(t: T) {
  return `Bearer ${await t.context.t.login('owner@demo.test')}`;
}

export async function peer(t: T, start: Promise<Peer>): Promise<Peer> {
  const started = await start;
  t.teardown(() => started.close());
  return started;
}

export async function addServer(t: T, auth: string, body: Record<string, unknown>): Promise<string> {
  const response = await t.context.t
    .http()
    .post(serversPath)
    .set('authorization', auth)
    .send({ name: 'Peer', transportType: 'http', ...body })
    .expect(201);
  return response.body.id as string;
}

/** The server's tools, through the test's app or `app` (another clock, for example). */
export const toolsOf = (t: T, auth: string, serverId: string, query = '', app?: App) =>
  (app ? request(app.callback()) : t.context.t.http()).get(`${serversPath}/${serverId}/tools${query}`).set('authorization', auth);

export const detailOf = async (t: T, auth: string, serverId: string) =>
  (await t.context.t.http().get(`${serversPath}/${serverId}`).set('authorization', auth).expect(200)).body as {
    status: string;
    lastCheckedAt: string | null;
  };
