import type { AppDeps } from '../app/core/deps.ts';
import { addDocument } from '../app/knowledge/service.ts';
import { listDocuments } from '../sql/knowledge.ts';
import { replaceAgentTools } from '../app/tools/permissions.ts';
import { listToolPermissionsOfAgent } from '../sql/tool-permissions.ts';
import { AGENTS, ORGANIZATIONS, USERS } from './demo-fixtures.ts';
import { HELP_CENTER } from './demo-help-center.ts';

/**
 * The Support Assistant's help center: its documents in the knowledge base, and (when the agent
 * has no tool set yet) `search_knowledge_base` and `list_documents` allowed, so the first chat on
 * a fresh machine answers from them ("How long do refunds take?" with the demo model, in the
 * console or the widget). Idempotent: a document already there by name is not added again,
 * and a tool set someone changed is left alone. Returns how many documents it added.
 */
export async function seedDemoKnowledge(deps: AppDeps): Promise<number> {
  const agent = AGENTS.support;
  const organizationId = ORGANIZATIONS[agent.agency].id;
  const present = new Set((await listDocuments(deps.db, agent.id)).map((document) => document.name));
  let added = 0;
  for (const [name, text] of Object.entries(HELP_CENTER)) {
    if (present.has(name)) continue;
    await addDocument(
      deps,
      { organizationId, agentId: agent.id, userId: USERS.owner.id },
      { name, contentType: name.endsWith('.html') ? 'text/html' : 'text/markdown', bytes: Buffer.from(text, 'utf8') },
    );
    added += 1;
  }
  if ((await listToolPermissionsOfAgent(deps.db, agent.id)).length === 0) {
    await replaceAgentTools(
      deps.db,
      organizationId,
      agent.id,
      [
        { toolName: 'search_knowledge_base', providerKey: 'knowledge', permissionStatus: 'always_allow' },
        { toolName: 'list_documents', providerKey: 'knowledge', permissionStatus: 'always_allow' },
      ],
      { userId: USERS.owner.id, now: deps.clock() },
    );
  }
  return added;
}
