import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_AGENT_NOT_FOUND = errorCode(404, 'AI.AGENT_NOT_FOUND');

/** 404 for a missing agent, another agency's agent and an archived one alike (docs/interface.md §2). */
export const agentNotFound = () => new CodedError(AI_AGENT_NOT_FOUND, { en: 'Agent not found', es: 'Agente no encontrado' });

