/** Number and date formatting shared by the panels (en-US, the API's currency is USD). */

const usdWide = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });
const usdNarrow = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });

/** Dollars; amounts under one dollar keep four decimals so small spends do not read as $0.00. */
export const formatUsd = (value: number) => (Math.abs(value) < 1 ? usdNarrow : usdWide).format(value);
export const formatInteger = (value: number) => integer.format(value);
export const formatCompact = (value: number) => compact.format(value);
export const formatPercent = (value: number) => percent.format(value);
export const formatMs = (value: number | null) => (value === null ? 'no data' : `${integer.format(value)} ms`);

/** A date-time in `timeZone`, e.g. "Nov 23, 2026, 14:00". */
export function formatDateTime(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(date);
}

/** Creates an element with text and attributes; the page never writes HTML strings. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    if (name === 'style') element.style.cssText = value;
    else element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

const decimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
/** A size in bytes as people read it: 512 bytes, 12.3 KB, 4.5 MB (1 KB = 1024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${integer.format(bytes)} bytes`;
  if (bytes < 1024 * 1024) return `${decimal.format(bytes / 1024)} KB`;
  return `${decimal.format(bytes / (1024 * 1024))} MB`;
}
