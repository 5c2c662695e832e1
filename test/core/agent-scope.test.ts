import test from 'ava';
import { readFileSync } from 'node:fs';
import { AGENT_SCOPE } from '../../app/agents/scope.ts';
import { areaRoutes } from '../../app/routes.ts';

const ARCHITECTURE = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

/** The routes docs/architecture.md says lack the agent scope: the `METHOD /path` codes after "except", up to the next ": ". */
function documentedExceptions(): string[] {
  const sentence = /`scope: AGENT_SCOPE` on every route under `\/ai\/agents\/:agentId` except(.*?): /.exec(
    ARCHITECTURE.replace(/\s+/g, ' '),
  );
  if (!sentence) return ['(the sentence "`scope: AGENT_SCOPE` on every route under `/ai/agents/:agentId` except ..." is gone)'];
  return [...sentence[1]!.matchAll(/`((?:GET|POST|PUT|PATCH|DELETE) \/[^`]+)`/g)].map((found) => found[1]!);
}

test("docs/architecture.md's agent-scope sentence names exactly the routes under /ai/agents/:agentId that lack the scope", (t) => {
  const unscoped = areaRoutes
    .filter((route) => route.path.startsWith('/ai/agents/:agentId') && route.scope !== AGENT_SCOPE)
    .map((route) => `${route.method} ${route.path}`);
  t.deepEqual(documentedExceptions().sort(), unscoped.sort());
  t.true(areaRoutes.filter((route) => route.scope === AGENT_SCOPE).length >= 19);
});
