/** The standalone inspector: `trimline inspect <file> --serve` (see server.ts). */
import { importTranscript } from '../../core/import';
import type { PipelineConfig } from '../../core/trimming';
import { ReplayInspector } from './replay-inspector';
import { startInspectorServer, type InspectorServer } from './server';

export { ReplayInspector } from './replay-inspector';
export { startInspectorServer, findRoot, LOOPBACK, type InspectorBackend, type InspectorServer, type InspectorServerOptions } from './server';

export interface ServeOptions {
  strategy: string;
  config?: PipelineConfig;
  port?: number;
  root?: string;
}

/** Replay a transcript and serve its inspector on 127.0.0.1. */
export async function serveTranscript(file: string, o: ServeOptions): Promise<{ server: InspectorServer; inspector: ReplayInspector }> {
  const inspector = new ReplayInspector(importTranscript(file), { strategy: o.strategy, config: o.config });
  const server = await startInspectorServer(inspector, { port: o.port, root: o.root, mutates: (r) => ReplayInspector.mutates(r) });
  return { server, inspector };
}
