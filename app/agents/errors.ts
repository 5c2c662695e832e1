import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_AGENT_NOT_FOUND = errorCode(404, 'AI.AGENT_NOT_FOUND');
export const AI_AGENT_LIMIT_REACHED = errorCode(409, 'AI.AGENT_LIMIT_REACHED');
export const AI_EVALUATION_NOT_PASSED = errorCode(409, 'AI.EVALUATION_NOT_PASSED');

/** 404 for a missing agent, another agency's agent and an archived one alike (docs/interface.md §2). */
export const agentNotFound = () => new CodedError(AI_AGENT_NOT_FOUND, { en: 'Agent not found', es: 'Agente no encontrado' });

/** The organization holds `limit` agents in use (`AGENTS_PER_ORGANIZATION`); archived ones do not count. */
export const agentLimitReached = (limit: number) =>
  new CodedError(
    AI_AGENT_LIMIT_REACHED,
    {
      en: `An organization may have at most ${limit} agents; archive one to create another.`,
      es: `Una organización puede tener como máximo ${limit} agentes; archiva uno para crear otro.`,
    },
    { limit },
  );

/** The evaluation run a change names did not pass on exactly the definition the change results in. */
export const evaluationNotPassed = () =>
  new CodedError(AI_EVALUATION_NOT_PASSED, {
    en: 'The evaluation run did not pass on this definition of the agent.',
    es: 'La evaluación no se superó con esta definición del agente.',
  });
