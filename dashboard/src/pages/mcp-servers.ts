import type { PageContext } from '../router.ts';
import { show } from '../views.ts';

export function render(_context: PageContext): void {
  show('page');
}
