/** Worker thread of `trimline proxy` (built to dist/proxy-worker.js): big requests' text-bound work (offload.ts). */
import { parentPort } from 'node:worker_threads';
import { serveOffload } from '../../core/proxy/offload';

if (parentPort) serveOffload(parentPort);
