import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const AGENCY_BUSINESS_NOT_FOUND = errorCode(404, 'AGENCY.BUSINESS_NOT_FOUND');

/** No business of the acting agency has this id (another agency's looks missing). */
export const businessNotFound = () =>
  new CodedError(AGENCY_BUSINESS_NOT_FOUND, {
    en: 'The business does not exist.',
    es: 'La empresa no existe.',
  });
