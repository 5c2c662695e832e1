import type { BuiltinExecutor } from './builtin-executor.ts';

/** The catalog tools this service has no executor of its own for: a deployment supplies them. */
export const DEPLOYMENT_TOOLS = ['search_inbox', 'list_events', 'create_event'] as const;
export type DeploymentToolName = (typeof DEPLOYMENT_TOOLS)[number];

const registered = new Map<DeploymentToolName, BuiltinExecutor>();

/**
 * Makes `toolName` run in this process: from now on the catalog says it is available and the
 * chat offers it to agents whose set allows it. A deployment calls this before it starts the
 * server (docs/agents-and-tools.md, "Tools a deployment supplies"). Returns the function that
 * removes it again. The name is typed: only the tools of `DEPLOYMENT_TOOLS` can be supplied.
 */
export function registerBuiltinExecutor(toolName: DeploymentToolName, executor: BuiltinExecutor): () => void {
  registered.set(toolName, executor);
  return () => {
    if (registered.get(toolName) === executor) registered.delete(toolName);
  };
}

/** The executor a deployment registered for `toolName`, if any. */
export const deploymentExecutor = (toolName: DeploymentToolName): BuiltinExecutor | undefined => registered.get(toolName);
