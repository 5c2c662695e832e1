import { CodedError } from '../core/errors.ts';

export const noActivePublicPlan = () =>
  new CodedError(409, 'PLANS.NO_ACTIVE_PUBLIC_PLAN', {
    en: 'This agency has no active public plan.',
    es: 'Esta agencia no tiene ningún plan público activo.',
  });

export const planNotFound = () => new CodedError(404, 'PLANS.PLAN_NOT_FOUND', { en: 'The plan does not exist.', es: 'El plan no existe.' });

export const lastActivePublicPlan = () =>
  new CodedError(409, 'PLANS.LAST_ACTIVE_PUBLIC_PLAN', {
    en: 'This is the last active public plan while business registration is on. Turn registration off first.',
    es: 'Es el último plan público activo mientras el registro de empresas está activado. Desactiva antes el registro.',
  });
