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
