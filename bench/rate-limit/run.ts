// Root entry of `npm run bench:rate-limit`: the benchmark lives with the library.
import '../../lib/rate-limit/bench/run.ts';
