import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_AGENT_NOT_FOUND = errorCode(404, 'AI.AGENT_NOT_FOUND');
export const AI_AGENT_LIMIT_REACHED = errorCode(409, 'AI.AGENT_LIMIT_REACHED');

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

export const AI_EVALUATION_NOT_PASSED = errorCode(409, 'AI.EVALUATION_NOT_PASSED');

/** The gate (docs/evaluations.md, "The gate"): the run did not pass, or passed on another definition. */
export const evaluationNotPassed = (why: 'not_found' | 'running' | 'failed' | 'other_definition') =>
  new CodedError(
    AI_EVALUATION_NOT_PASSED,
    {
      en:
        why === 'other_definition'
          ? 'That evaluation run tried another definition than the one this change results in.'
          : 'That evaluation run has not passed.',
      es:
        why === 'other_definition'
          ? 'Esa evaluación probó otra definición que la que resulta de este cambio.'
          : 'Esa evaluación no ha pasado.',
    },
    { reason: why },
  );
