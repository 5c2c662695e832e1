// Public API of @agents/analytics: named re-exports only.
export { ols, fitLinear } from './regression/ols.ts';
export type { Point, LinearFit } from './regression/ols.ts';
export { studentTQuantile } from './distributions/student-t-quantile.ts';
export { studentTCdf, studentTDensity } from './distributions/student-t.ts';
export { predictionIntervalForSum } from './forecast/prediction-interval.ts';
export type { FitSummary, SumPredictionOptions, SumPrediction } from './forecast/prediction-interval.ts';
export { projectFutureTotal } from './forecast/project-future-total.ts';
export type { CostPoint, ProjectFutureTotalOptions, FutureTotal } from './forecast/project-future-total.ts';
export { percentileCont } from './stats/percentile.ts';
export { deriveGranularity, GRANULARITY_LIMITS_MS } from './time/granularity.ts';
export type { Granularity } from './time/granularity.ts';
export { bucketStarts, countBuckets } from './time/buckets.ts';
export type { BucketOptions } from './time/buckets.ts';
export { isValidTimeZone } from './time/time-zone.ts';
export { localDayOfWeekAndHour } from './time/local-time.ts';
export type { LocalDayOfWeekAndHour } from './time/local-time.ts';
