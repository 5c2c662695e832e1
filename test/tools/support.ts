import { sql, type DatabasePool } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import type { ExecutionContext } from 'ava';
import type { TestApp, TestContext } from '../helpers/app.ts';

export type Ctx = ExecutionContext<TestContext>;

export const SUPPORT = AGENTS.support.id;
export const RESEARCH = AGENTS.research.id;
export const OTHER_AGENT = AGENTS.otherHelper.id;
export const OWNER = USERS.owner;
export const MEMBER = USERS.member;

const tokens = new WeakMap<TestApp, Map<string, Promise<string>>>();

/** A request helper bound to one signed-in user (one login per user and test file). */
export async function as(t: TestApp, email: string) {
  let perApp = tokens.get(t);
  if (!perApp) tokens.set(t, (perApp = new Map()));
  if (!perApp.has(email)) perApp.set(email, t.login(email));
  const token = await (perApp.get(email) as Promise<string>);
  const auth = { authorization: `Bearer ${token}` };
  return {
    token,
    get: (path: string) => t.http().get(path).set(auth),
    put: (path: string, body: unknown) =>
      t
        .http()
        .put(path)
        .set(auth)
        .send(body as object),
    post: (path: string, body: unknown) =>
      t
        .http()
        .post(path)
        .set(auth)
        .send(body as object),
    delete: (path: string) => t.http().delete(path).set(auth),
  };
}

/** Saves an MCP server on an agent directly (the MCP server routes are another area's). */
export async function insertMcpServer(db: DatabasePool, agentId: string, agency: keyof typeof ORGANIZATIONS = 'demoAgency') {
  const id = uuidv7();
  await db.query(sql.unsafe`
    INSERT INTO agent_mcp_servers (id, organization_id, agent_id, name, url, transport_type, auth_type)
    VALUES (${id}, ${ORGANIZATIONS[agency].id}, ${agentId}, 'Test server', 'https://mcp.example.test/mcp', 'http', 'none')`);
  return id;
}

export const toolsPath = (agentId: string) => `/api/ai/agents/${agentId}/tools`;
export const overridesPath = (agentId: string) => `/api/ai/agents/${agentId}/tool-overrides`;
export const effectivePath = (agentId: string) => `/api/ai/agents/${agentId}/tools/effective`;

export const AGENT_NOT_FOUND = {
  statusCode: 404,
  errorCode: 'AI.AGENT_NOT_FOUND',
  message: { en: 'Agent not found', es: 'Agente no encontrado' },
};
