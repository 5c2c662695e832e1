import { CodedError, errorCode } from '../../core/errors.ts';

/** This area's codes, as the routes that answer them declare them (`errors: [...]`, app/core/route.ts). */
export const AI_BUDGET_EXCEEDED = errorCode(402, 'AI.BUDGET_EXCEEDED');

const usd = (value: number) => `$${value.toFixed(2)}`;

/** An enforced budget is used up: a new chat turn is refused (docs/chat.md). */
export const budgetExceeded = (spentUsd: number, limitUsd: number) =>
  new CodedError(AI_BUDGET_EXCEEDED, {
    en: `This organization's AI budget is used up: ${usd(spentUsd)} spent this month of a ${usd(limitUsd)} limit. New chats are stopped until the limit is raised or the month ends.`,
    es: `El presupuesto de IA de esta organización está agotado: ${usd(spentUsd)} gastados este mes de un límite de ${usd(limitUsd)}. Los chats nuevos están detenidos hasta que se aumente el límite o termine el mes.`,
  });

/**
 * What an end user (the `/api/public/...` routes, their streams) is told of a refused budget: the
 * same code, no amount, no limit, no metadata. The organization's spend is its staff's business.
 */
const assistantNotAvailable = () =>
  new CodedError(AI_BUDGET_EXCEEDED, {
    en: 'This assistant is not available right now.',
    es: 'Este asistente no está disponible en este momento.',
  });

/** `error` as an end user may see it: a refused budget without its figures, anything else as it is. */
export const forEndUsers = (error: unknown) =>
  error instanceof CodedError && error.declared === AI_BUDGET_EXCEEDED ? assistantNotAvailable() : error;
