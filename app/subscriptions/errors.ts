import { CodedError } from '../core/errors.ts';

export const userLimitReached = () =>
  new CodedError(409, 'SUBSCRIPTION.USER_LIMIT_REACHED', {
    en: 'This agency has reached its user limit.',
    es: 'Esta agencia ha alcanzado su límite de usuarios.',
  });
