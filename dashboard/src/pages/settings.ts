/** Organization settings: API keys and the model-provider key (both need `update` on `organization`). */
import type { PageContext } from '../page.ts';
import { pageHeading } from '../ui.ts';
import { show } from '../views.ts';
import { renderApiKeys } from './api-keys.ts';
import { renderProviderKey } from './provider-key.ts';

export async function render({ root, signal }: PageContext): Promise<void> {
  show('page');
  root.append(pageHeading('Settings'));
  await Promise.all([renderApiKeys(root, signal), renderProviderKey(root, signal)]);
}
