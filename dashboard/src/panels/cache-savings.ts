/** Prompt-cache savings, hit rate and what the skipped (unpriced) models mean for the figure. */
import { el, formatInteger, formatPercent, formatUsd } from '../format.ts';
import type { Panel } from '../panel.ts';
import type { CacheSavings, Source } from '../types.ts';

export function renderCacheSavings(panel: Panel, answer: CacheSavings, source: Source): void {
  if (answer.totalInputTokens === 0) {
    panel.empty(
      source === 'byok'
        ? 'No input tokens from your own keys in this window (BYOK calls report no cache reads).'
        : 'No input tokens in this window.',
    );
    return;
  }
  const skipped =
    answer.skippedModelsCount === 0
      ? 'Every model used in this window has a price, so the savings cover all cache reads.'
      : `${answer.skippedModelsCount} model${answer.skippedModelsCount === 1 ? '' : 's'} used in this window ${
          answer.skippedModelsCount === 1 ? 'has' : 'have'
        } no price, so ${answer.skippedModelsCount === 1 ? 'its' : 'their'} cache reads are left out: the savings figure is partial (a lower bound).`;
  const list = el(
    'dl',
    {
      class: 'facts big',
      'data-savings': String(answer.estimatedSavingsUsd),
      'data-hit-rate': String(answer.hitRate),
      'data-skipped': String(answer.skippedModelsCount),
    },
    el('dt', {}, 'Estimated savings'),
    el('dd', {}, formatUsd(answer.estimatedSavingsUsd)),
    el('dt', {}, 'Cache hit rate'),
    el('dd', {}, formatPercent(answer.hitRate)),
    el('dt', {}, 'Cache-read tokens'),
    el('dd', {}, `${formatInteger(answer.totalCacheReadTokens)} of ${formatInteger(answer.totalInputTokens)} input tokens`),
  );
  const meter = el('div', {
    class: 'meter',
    role: 'meter',
    'aria-label': 'Cache hit rate',
    'aria-valuemin': '0',
    'aria-valuemax': '100',
    'aria-valuenow': (answer.hitRate * 100).toFixed(1),
    style: `--value: ${answer.hitRate.toFixed(4)}`,
  });
  const notes = [el('p', { class: answer.skippedModelsCount > 0 ? 'note warn' : 'note', 'data-skipped-note': '' }, skipped)];
  if (source === 'all') {
    notes.push(
      el(
        'p',
        { class: 'note' },
        'Calls with your own keys (BYOK) report no cache reads and lower this hit rate; choose "System tokens" for the platform’s own.',
      ),
    );
  }
  panel.ready([list, meter, ...notes]);
}
