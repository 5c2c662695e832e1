/**
 * The brand the console wears (docs/billing.md, "Branding"): before sign-in the brand of the host
 * it is served on (`GET /api/public/branding`), once signed in the brand in force in the user's own
 * organization (`GET /api/organization/my/branding`: an agency's own, a business's agency's). The
 * logo is an https URL the browser loads (the page's policy allows https images); the server never
 * fetches it. The color marks the header's edge, and becomes the accent of links and buttons only
 * when white text on it stays readable (contrast 4.5:1), so no brand can make the console illegible.
 */
import { requestJson } from './api.ts';
import { el } from './format.ts';
import { byId } from './views.ts';

export type Brand = { productName: string; primaryColor: string; logoUrl: string | null };

/** The product's own brand, worn until an answer says otherwise. */
export const PRODUCT_BRAND: Brand = { productName: 'Agents', primaryColor: '#1d4ed8', logoUrl: null };

let hostBrand: Brand = PRODUCT_BRAND;

/** Relative luminance of `#rrggbb` (WCAG 2). */
function luminance(hex: string): number {
  const channel = (at: number) => {
    const value = parseInt(hex.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Whether white text on `hex` has a contrast of at least 4.5:1. */
export const whiteReadsOn = (hex: string) => /^#[0-9a-f]{6}$/i.test(hex) && 1.05 / (luminance(hex) + 0.05) >= 4.5;

/** An https URL, or null (anything else is never put in an `img`). */
export const httpsUrl = (value: string | null): string | null => {
  if (!value) return null;
  try {
    return new URL(value).protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
};

/** A header-like mark: the logo (when any) and the product's name, `suffix` after it. */
export function brandMark(brand: Brand, suffix = ''): (Node | string)[] {
  const logo = httpsUrl(brand.logoUrl);
  return [
    ...(logo ? [el('img', { class: 'brand-logo', src: logo, alt: '', referrerpolicy: 'no-referrer' })] : []),
    `${brand.productName}${suffix}`,
  ];
}

/** Wears `brand`: the header's name and logo, the page title and the colors. */
export function applyBrand(brand: Brand): void {
  const heading = byId('brand');
  heading.replaceChildren(...brandMark(brand, ' console'));
  heading.dataset.productName = brand.productName;
  document.title = `${brand.productName} console`;
  const root = document.documentElement.style;
  // The product's own color leaves the stylesheet's accent as it is.
  const own = brand.primaryColor.toLowerCase() === PRODUCT_BRAND.primaryColor;
  if (own) root.removeProperty('--brand');
  else root.setProperty('--brand', brand.primaryColor);
  if (!own && whiteReadsOn(brand.primaryColor)) root.setProperty('--accent', brand.primaryColor);
  else root.removeProperty('--accent');
}

/** Before sign-in: the brand of the host the console is served on (the product's own when the call fails). */
export async function wearHostBrand(): Promise<void> {
  hostBrand = await requestJson<Brand>('/api/public/branding').catch(() => PRODUCT_BRAND);
  applyBrand(hostBrand);
}

/** Signed in: the brand in force in the user's own organization (the host's when it may not be read). */
export async function wearUserBrand(token: string): Promise<void> {
  const brand = await requestJson<Brand>('/api/organization/my/branding', { token }).catch(() => undefined);
  applyBrand(brand ? { productName: brand.productName, primaryColor: brand.primaryColor, logoUrl: brand.logoUrl } : hostBrand);
}

/** Signed out: back to the host's brand. */
export const wearSignedOutBrand = () => applyBrand(hostBrand);
