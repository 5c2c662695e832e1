import { CodedError } from '../core/errors.ts';

export const organizationNotFound = () =>
  new CodedError(404, 'ORGANIZATION.NOT_FOUND', { en: 'The organization does not exist.', es: 'La organización no existe.' });

export const noActivePublicPlan = () =>
  new CodedError(409, 'ORGANIZATION.NO_ACTIVE_PUBLIC_PLAN', {
    en: 'Business registration needs at least one active public plan.',
    es: 'El registro de empresas necesita al menos un plan público activo.',
  });

export const notAnAgency = () =>
  new CodedError(409, 'ORGANIZATION.NOT_AN_AGENCY', {
    en: 'Only an agency can accept business registrations.',
    es: 'Solo una agencia puede admitir registros de empresas.',
  });
