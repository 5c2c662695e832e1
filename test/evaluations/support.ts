import type { TestApp } from '../helpers/app.ts';
import { as } from '../tools/support.ts';

/** A request helper of one signed-in user, with PATCH beside the shared helper's verbs. */
export async function user(t: TestApp, email: string) {
  const base = await as(t, email);
  const auth = { authorization: `Bearer ${base.token}` };
  return {
    ...base,
    patch: (path: string, body: unknown) =>
      t
        .http()
        .patch(path)
        .set(auth)
        .send(body as object),
  };
}

export const agentPath = (agentId: string) => `/api/ai/agents/${agentId}`;
