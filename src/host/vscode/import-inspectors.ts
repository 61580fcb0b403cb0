/**
 * Inspector panels on imported transcripts: one replay backend per panel, made on first use
 * with the strategy the panel asked for (else the setting), and dropped with the panel.
 */
import * as path from 'node:path';
import type { WebviewRequest } from '../../protocol';
import { ReplayInspector } from '../standalone/replay-inspector';
import type { TrimlineSettings } from './config-map';
import type { InspectorHandle } from './host-types';
import type { Log } from './log';
import { loadTranscript } from './session-commands';

export class ImportInspectors {
  private readonly backends = new Map<InspectorHandle, ReplayInspector>();

  constructor(
    private readonly settings: () => TrimlineSettings,
    private readonly log: Log,
  ) {}

  /** The panel's first snapshot. */
  ready(panel: InspectorHandle): void {
    panel.post({ type: 'snapshot', snapshot: this.backend(panel).snapshot() });
  }

  /** A request of the panel; a change is followed by a new snapshot. */
  request(panel: InspectorHandle, req: WebviewRequest): unknown {
    const backend = this.backend(panel);
    const result = backend.handle(req);
    if (ReplayInspector.mutates(req)) panel.post({ type: 'snapshot', snapshot: backend.snapshot() });
    return result;
  }

  closed(panel: InspectorHandle): void {
    this.backends.delete(panel);
  }

  private backend(panel: InspectorHandle): ReplayInspector {
    let backend = this.backends.get(panel);
    if (!backend) {
      if (panel.source.kind !== 'import') throw new Error('not an import panel');
      const s = this.settings();
      const strategy = panel.source.strategy ?? s.strategy;
      const imp = loadTranscript(panel.source.file);
      backend = new ReplayInspector(imp, { strategy, config: s.pipeline, title: path.basename(panel.source.file) });
      this.backends.set(panel, backend);
      const issues = imp.issues.length ? `, ${imp.issues.length} issues` : '';
      this.log.info(
        `imported ${panel.source.file} (strategy ${strategy}): ${imp.format}, ` +
          `${imp.messages.length} messages, ${imp.calls.length} calls${issues}`,
      );
    }
    return backend;
  }
}
