/** Okabe-Ito palette (distinguishable with the common colour-vision deficiencies), then greys. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000', '#7f7f7f', '#b3b3b3'];

export const colorAt = (index: number) => PALETTE[index % PALETTE.length] ?? '#7f7f7f';

/** `#rrggbb` with an alpha channel. */
export const withAlpha = (hex: string, alpha: number) =>
  `${hex}${Math.round(alpha * 255)
    .toString(16)
    .padStart(2, '0')}`;
