import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const PLANS_NO_ACTIVE_PUBLIC_PLAN = errorCode(409, 'PLANS.NO_ACTIVE_PUBLIC_PLAN');
export const PLANS_PLAN_NOT_FOUND = errorCode(404, 'PLANS.PLAN_NOT_FOUND');
export const PLANS_LAST_ACTIVE_PUBLIC_PLAN = errorCode(409, 'PLANS.LAST_ACTIVE_PUBLIC_PLAN');

export const noActivePublicPlan = () =>
  new CodedError(PLANS_NO_ACTIVE_PUBLIC_PLAN, {
    en: 'This agency has no active public plan.',
    es: 'Esta agencia no tiene ningún plan público activo.',
  });

export const planNotFound = () => new CodedError(PLANS_PLAN_NOT_FOUND, { en: 'The plan does not exist.', es: 'El plan no existe.' });

export const lastActivePublicPlan = () =>
  new CodedError(PLANS_LAST_ACTIVE_PUBLIC_PLAN, {
    en: 'This is the last active public plan while business registration is on. Turn registration off first.',
    es: 'Es el último plan público activo mientras el registro de empresas está activado. Desactiva antes el registro.',
  });

export const PLANS_PLAN_NOT_AVAILABLE = errorCode(409, 'PLANS.PLAN_NOT_AVAILABLE');
export const PLANS_LIMIT_REACHED = errorCode(409, 'PLANS.LIMIT_REACHED');

/** A plan a business cannot be put on: not the agency's, not active, or (on self-registration) not public. */
export const planNotAvailable = () =>
  new CodedError(PLANS_PLAN_NOT_AVAILABLE, {
    en: 'This plan is not available.',
    es: 'Este plan no está disponible.',
  });

/** What a plan's limit counts, as its message names it. */
export type LimitName = 'maxAgents' | 'maxUsers' | 'maxDocumentsMb';

const limitWords: Record<LimitName, { en: string; es: string }> = {
  maxAgents: { en: 'agents', es: 'agentes' },
  maxUsers: { en: 'users', es: 'usuarios' },
  maxDocumentsMb: { en: 'MB of documents', es: 'MB de documentos' },
};

/** A business at one of its plan's limits: `limit` is the plan's, `value` what the business has now. */
export const planLimitReached = (name: LimitName, limit: number, value: number) =>
  new CodedError(
    PLANS_LIMIT_REACHED,
    {
      en: `The plan allows at most ${limit} ${limitWords[name].en}.`,
      es: `El plan permite como máximo ${limit} ${limitWords[name].es}.`,
    },
    { limit, value },
  );
