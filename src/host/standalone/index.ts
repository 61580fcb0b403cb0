/** The standalone inspector: `trimline inspect <file> --serve` (see server.ts). */
import { importTranscript } from '../../core/import';
import type { ImportedSession } from '../../core/session/types';
import type { PipelineConfig } from '../../core/trimming';
import { ReplayInspector } from './replay-inspector';
import { startInspectorServer, type InspectorServer } from './server';

export { ReplayInspector } from './replay-inspector';
export {
  startInspectorServer,
  findRoot,
  LOOPBACK,
  type InspectorBackend,
  type InspectorServer,
  type InspectorServerOptions,
} from './server';

export interface ServeOptions {
  strategy: string;
  config?: PipelineConfig;
  port?: number;
  root?: string;
  /** The session already imported (a Trimline journal), with its calls' numbers (ReplayInspectorOptions.callNumber). */
  imported?: ImportedSession;
  callNumber?: (callIndex: number) => number | undefined;
}

/** Replay a transcript and serve its inspector on 127.0.0.1. */
export async function serveTranscript(
  file: string,
  o: ServeOptions,
): Promise<{ server: InspectorServer; inspector: ReplayInspector }> {
  const imp = o.imported ?? importTranscript(file);
  const inspector = new ReplayInspector(imp, { strategy: o.strategy, config: o.config, callNumber: o.callNumber });
  const server = await startInspectorServer(inspector, {
    port: o.port,
    root: o.root,
    mutates: (r) => ReplayInspector.mutates(r),
  });
  return { server, inspector };
}
