import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const ORGANIZATION_HOST_TAKEN = errorCode(409, 'ORGANIZATION.HOST_TAKEN');

export const hostTaken = () =>
  new CodedError(ORGANIZATION_HOST_TAKEN, {
    en: 'Another agency already uses one of these hosts.',
    es: 'Otra agencia ya usa uno de estos dominios.',
  });
