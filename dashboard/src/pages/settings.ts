/** Organization settings: API keys, the model-provider key and the monthly budget (changes need `update` on `organization`). */
import type { PageContext } from '../page.ts';
import { pageHeading } from '../ui.ts';
import { show } from '../views.ts';
import { renderApiKeys } from './api-keys.ts';
import { renderBudget } from './budget.ts';
import { renderProviderKey } from './provider-key.ts';

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  root.append(pageHeading('Settings'));
  await Promise.all([renderApiKeys(root, signal), renderProviderKey(root, signal), renderBudget(root, signal)]);
}
