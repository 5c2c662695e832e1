import { CodedError } from '../core/errors.ts';

/** 404 for a missing agent and for another agency's agent alike (docs/interface.md §2). */
export const agentNotFound = () => new CodedError(404, 'AI.AGENT_NOT_FOUND', { en: 'Agent not found', es: 'Agente no encontrado' });
