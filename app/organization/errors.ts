import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const ORGANIZATION_NOT_FOUND = errorCode(404, 'ORGANIZATION.NOT_FOUND');
export const ORGANIZATION_NO_ACTIVE_PUBLIC_PLAN = errorCode(409, 'ORGANIZATION.NO_ACTIVE_PUBLIC_PLAN');
export const ORGANIZATION_NOT_AN_AGENCY = errorCode(409, 'ORGANIZATION.NOT_AN_AGENCY');
export const ORGANIZATION_LAST_OWNER = errorCode(409, 'ORGANIZATION.LAST_OWNER');
export const ORGANIZATION_MEMBER_NOT_FOUND = errorCode(404, 'ORGANIZATION.MEMBER_NOT_FOUND');

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

export const lastOwner = () =>
  new CodedError(ORGANIZATION_LAST_OWNER, {
    en: 'The last owner of an organization cannot be removed. Make another owner first.',
    es: 'No se puede quitar al último propietario de una organización. Nombra antes a otro propietario.',
  });

export const memberNotFound = () =>
  new CodedError(ORGANIZATION_MEMBER_NOT_FOUND, {
    en: 'The organization has no such member.',
    es: 'La organización no tiene ese miembro.',
  });

/** A route of an agency's own (its clients list, a new client workspace) asked in a business. */
export const agencyOnly = () =>
  new CodedError(ORGANIZATION_NOT_AN_AGENCY, {
    en: 'Only an agency has client workspaces: act in the agency.',
    es: 'Solo una agencia tiene espacios de clientes: actúa en la agencia.',
  });
