import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AI_AGENT_VERSION_NOT_FOUND = errorCode(404, 'AI.AGENT_VERSION_NOT_FOUND');
export const AI_EVAL_CASE_NOT_FOUND = errorCode(404, 'AI.EVAL_CASE_NOT_FOUND');
export const AI_EVAL_RUN_NOT_FOUND = errorCode(404, 'AI.EVAL_RUN_NOT_FOUND');
export const AI_EVAL_CASE_LIMIT_REACHED = errorCode(409, 'AI.EVAL_CASE_LIMIT_REACHED');
export const AI_EVALUATION_BUSY = errorCode(409, 'AI.EVALUATION_BUSY');

export const versionNotFound = () => new CodedError(AI_AGENT_VERSION_NOT_FOUND, { en: 'Version not found', es: 'Versión no encontrada' });
export const caseNotFound = () => new CodedError(AI_EVAL_CASE_NOT_FOUND, { en: 'Test case not found', es: 'Caso de prueba no encontrado' });
export const runNotFound = () =>
  new CodedError(AI_EVAL_RUN_NOT_FOUND, { en: 'Evaluation run not found', es: 'Ejecución de evaluación no encontrada' });

export const caseLimitReached = (limit: number) =>
  new CodedError(
    AI_EVAL_CASE_LIMIT_REACHED,
    {
      en: `An agent may have at most ${limit} test cases; delete one to add another.`,
      es: `Un agente puede tener como máximo ${limit} casos de prueba; borra uno para añadir otro.`,
    },
    { limit },
  );

export const evaluationBusy = (limit: number) =>
  new CodedError(
    AI_EVALUATION_BUSY,
    {
      en: `At most ${limit} evaluation runs of an organization run at once; wait for one to end.`,
      es: `Como máximo ${limit} evaluaciones de una organización se ejecutan a la vez; espera a que termine una.`,
    },
    { limit },
  );
