// Public API of @agents/analytics: named re-exports only.
export { ols, fitLinear } from './regression/ols.ts';
export type { Point, LinearFit } from './regression/ols.ts';
export { studentTQuantile } from './distributions/student-t-quantile.ts';
export { studentTCdf, studentTDensity } from './distributions/student-t.ts';
