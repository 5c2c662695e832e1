import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const PLANS_NO_ACTIVE_PUBLIC_PLAN = errorCode(409, 'PLANS.NO_ACTIVE_PUBLIC_PLAN');
export const PLANS_PLAN_NOT_FOUND = errorCode(404, 'PLANS.PLAN_NOT_FOUND');
export const PLANS_LAST_ACTIVE_PUBLIC_PLAN = errorCode(409, 'PLANS.LAST_ACTIVE_PUBLIC_PLAN');
export const PLANS_PLAN_NOT_AVAILABLE = errorCode(409, 'PLANS.PLAN_NOT_AVAILABLE');

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

export const planNotAvailable = () =>
  new CodedError(PLANS_PLAN_NOT_AVAILABLE, {
    en: 'The plan is not an active plan of this agency.',
    es: 'El plan no es un plan activo de esta agencia.',
  });
