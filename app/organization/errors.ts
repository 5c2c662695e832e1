import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const ORGANIZATION_NOT_FOUND = errorCode(404, 'ORGANIZATION.NOT_FOUND');
export const ORGANIZATION_NO_ACTIVE_PUBLIC_PLAN = errorCode(409, 'ORGANIZATION.NO_ACTIVE_PUBLIC_PLAN');
export const ORGANIZATION_NOT_AN_AGENCY = errorCode(409, 'ORGANIZATION.NOT_AN_AGENCY');

export const organizationNotFound = () =>
  new CodedError(ORGANIZATION_NOT_FOUND, { en: 'The organization does not exist.', es: 'La organización no existe.' });

export const noActivePublicPlan = () =>
  new CodedError(ORGANIZATION_NO_ACTIVE_PUBLIC_PLAN, {
    en: 'Business registration needs at least one active public plan.',
    es: 'El registro de empresas necesita al menos un plan público activo.',
  });

export const notAnAgency = () =>
  new CodedError(ORGANIZATION_NOT_AN_AGENCY, {
    en: 'Only an agency can accept business registrations.',
    es: 'Solo una agencia puede admitir registros de empresas.',
  });
