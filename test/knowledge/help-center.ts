export { HELP_CENTER as HELP_CENTER_FILES } from '../../seeds/demo-help-center.ts';
import { HELP_CENTER as FILES } from '../../seeds/demo-help-center.ts';

/** Two help-center pages as plain strings, for upload tests. */
export const HELP_CENTER = { refunds: FILES['refunds-and-returns.md'], shipping: FILES['shipping.md'] };
