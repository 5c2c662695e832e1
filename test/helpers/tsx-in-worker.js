// Loaded by ava before each test file of `npm run test:unit` (ava.unit.config.js): tsx's loader, in this worker thread.
import { register } from 'tsx/esm/api';

register();
