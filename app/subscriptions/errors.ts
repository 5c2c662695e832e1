import { CodedError, errorCode } from '../core/errors.ts';

/** This area's codes, as its routes declare them (`errors: [...]`, app/core/route.ts). */
export const SUBSCRIPTION_USER_LIMIT_REACHED = errorCode(409, 'SUBSCRIPTION.USER_LIMIT_REACHED');

export const userLimitReached = () =>
  new CodedError(SUBSCRIPTION_USER_LIMIT_REACHED, {
    en: 'This agency has reached its user limit.',
    es: 'Esta agencia ha alcanzado su límite de usuarios.',
  });
