import type { Agent } from '../../sql/agents.ts';

/** The service's own note, added after the instructions only when the model is offered tools. */
export const TOOLS_NOTE = "Use the tools you are offered when they help; a tool may need the user's approval before it runs.";

/**
 * The system message of an agent's model calls (docs/chat.md, "The agent's definition"): its
 * `instructions` verbatim, followed by `TOOLS_NOTE` when tools are offered. An agent without
 * instructions gets a short stand-in built from its name and description.
 */
export function systemMessageOf(agent: Pick<Agent, 'name' | 'description' | 'instructions'>, offersTools: boolean): string {
  const note = offersTools ? TOOLS_NOTE : '';
  if (agent.instructions !== '') return note === '' ? agent.instructions : `${agent.instructions}\n\n${note}`;
  const about = agent.description.trim() === '' ? '' : ` ${agent.description.trim()}`;
  return `You are ${agent.name}, an assistant of this organization.${about}${note === '' ? '' : ` ${note}`}`;
}

/**
 * The agent's sampling settings for `streamText`, sent on every model call (Chat Completions
 * `temperature` and `max_tokens`); a null setting is left out, so the provider's default applies.
 */
export function callSettingsOf(agent: Pick<Agent, 'temperature' | 'maxOutputTokens'>): { temperature?: number; maxOutputTokens?: number } {
  return {
    ...(agent.temperature === null ? {} : { temperature: agent.temperature }),
    ...(agent.maxOutputTokens === null ? {} : { maxOutputTokens: agent.maxOutputTokens }),
  };
}
