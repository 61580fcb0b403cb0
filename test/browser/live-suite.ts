/**
 * A live proxied session served by the standalone server and a Chromium to watch it, set
 * up once for the describe block that calls this and closed after it (the live-update tests).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { InspectorServer } from '../../src/host/standalone';
import { launchBrowser } from './helpers';
import { serveLive, type LiveProxySession, type ServedLive } from './live-session';

export interface LiveSuite {
  readonly browser: Browser;
  readonly live: LiveProxySession;
  readonly server: InspectorServer;
}

export function useLiveSession(blocks: number): LiveSuite {
  const s = {} as { browser: Browser; live: LiveProxySession; server: InspectorServer; served?: ServedLive };
  beforeAll(async () => {
    s.browser = await launchBrowser();
    s.served = await serveLive(blocks);
    s.live = s.served.live;
    s.server = s.served.server;
  });
  afterAll(async () => {
    await s.browser?.close();
    await s.served?.close();
  });
  return s;
}
