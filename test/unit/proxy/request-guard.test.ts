/** The proxy's request target, its upstream URL, and which Host and Origin it answers to. */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost, originFormPath, refusal, refusalBody, upstreamUrl } from '../../../src/host/request-guard';

const api = new URL('https://api.anthropic.com');
const gateway = new URL('http://gw.internal:1/base/');

describe('originFormPath', () => {
  it('accepts a path with one leading slash, query and all', () => {
    expect(originFormPath('/v1/messages?beta=true')).toBe('/v1/messages?beta=true');
    expect(originFormPath('/')).toBe('/');
    expect(originFormPath('/v1/models/claude%2Dsonnet')).toBe('/v1/models/claude%2Dsonnet');
    // A dot inside a segment, or dots in the query, are not dot segments.
    expect(originFormPath('/v1/files/a..b?x=../..')).toBe('/v1/files/a..b?x=../..');
  });

  it('refuses protocol-relative, absolute, authority and asterisk forms', () => {
    for (const t of [
      '//127.0.0.1:9999/v1/messages',
      '//internal-host/admin',
      '///x',
      'http://evil.example/v1/messages',
      'https://api.anthropic.com/v1/messages',
      'evil.example:443',
      '*',
      '',
      undefined,
    ]) {
      expect(originFormPath(t), String(t)).toBeUndefined();
    }
  });

  it('refuses backslashes and dot segments, percent-encoded too', () => {
    for (const t of [
      '/\\evil.example/x',
      '/v1\\..\\x',
      '/../admin',
      '/v1/./messages',
      '/v1/..',
      '/%2e%2e/admin',
      '/%2E./admin',
      '/.%2e?x',
    ]) {
      expect(originFormPath(t), t).toBeUndefined();
    }
  });
});

describe('upstreamUrl', () => {
  it('joins the path onto the upstream origin, keeping its base path and the query', () => {
    expect(upstreamUrl(api, '/v1/messages?beta=true')?.href).toBe('https://api.anthropic.com/v1/messages?beta=true');
    expect(upstreamUrl(gateway, '/v1/messages')?.href).toBe('http://gw.internal:1/base/v1/messages');
    expect(upstreamUrl(new URL('http://gw.internal:1/base'), '/v1/models?limit=2')?.href).toBe(
      'http://gw.internal:1/base/v1/models?limit=2',
    );
  });

  it('never leaves the upstream: the host a client names in the target is refused', () => {
    expect(upstreamUrl(api, '//127.0.0.1:9999/v1/messages')).toBeUndefined();
    expect(upstreamUrl(gateway, '//internal-host/admin')).toBeUndefined();
    expect(upstreamUrl(api, 'http://127.0.0.1:9999/v1/messages')).toBeUndefined();
    expect(upstreamUrl(gateway, '/\\127.0.0.1:9999/x')).toBeUndefined();
    expect(upstreamUrl(gateway, '/../admin')).toBeUndefined();
    expect(upstreamUrl(gateway, '/%2e%2e/admin')).toBeUndefined();
  });

  it('keeps characters a URL parser could read as an authority inside the path', () => {
    const u = upstreamUrl(gateway, '/@evil.example/x')!;
    expect(u.host).toBe('gw.internal:1');
    expect(u.pathname).toBe('/base/@evil.example/x');
  });
});

describe('isLoopbackHost', () => {
  it('accepts 127.0.0.0/8, localhost and [::1] with this port', () => {
    for (const h of ['127.0.0.1:4000', '127.1.2.3:4000', 'localhost:4000', 'LOCALHOST:4000', '[::1]:4000'])
      expect(isLoopbackHost(h, 4000), h).toBe(true);
  });

  it('refuses other names, other ports, look-alikes and a missing Host', () => {
    for (const h of [
      'evil.example:4000',
      'evil.example',
      '127.0.0.1:4001',
      '127.0.0.1',
      'localhost',
      '127.0.0.1.evil.example:4000',
      '127.0.0.256:4000',
      'localhost.evil.example:4000',
      '[::2]:4000',
      '0.0.0.0:4000',
      '10.0.0.1:4000',
      undefined,
    ]) {
      expect(isLoopbackHost(h, 4000), String(h)).toBe(false);
    }
  });

  it('accepts a Host without a port only when the port is 80', () => {
    expect(isLoopbackHost('localhost', 80)).toBe(true);
    expect(isLoopbackHost('127.0.0.1', 80)).toBe(true);
  });
});

describe('refusal', () => {
  const ok = { url: '/v1/messages', host: '127.0.0.1:4000' };

  it('lets an API client through (loopback Host, no Origin) and the inspector page (its own Origin)', () => {
    expect(refusal(ok, 4000)).toBeUndefined();
    expect(refusal({ ...ok, origin: 'http://127.0.0.1:4000' }, 4000)).toBeUndefined();
    expect(refusal({ ...ok, host: 'localhost:4000', origin: 'http://localhost:4000' }, 4000)).toBeUndefined();
  });

  it('refuses a bad target with 400 before anything else', () => {
    expect(refusal({ url: '//127.0.0.1:9999/v1/messages', host: 'evil.example' }, 4000)?.status).toBe(400);
    expect(refusal({ ...ok, url: 'http://evil.example/' }, 4000)?.status).toBe(400);
  });

  it('refuses a foreign Host and any other Origin with 403', () => {
    expect(refusal({ ...ok, host: 'rebound.evil.example:4000' }, 4000)?.status).toBe(403);
    for (const origin of [
      'http://evil.example',
      'null',
      'http://127.0.0.1:4001',
      'https://127.0.0.1:4000',
      'http://127.0.0.1:4000.evil.example',
    ]) {
      expect(refusal({ ...ok, origin }, 4000)?.status, origin).toBe(403);
    }
  });

  it('refuses what a browser marks as sent from another site even without an Origin', () => {
    expect(refusal({ ...ok, secFetchSite: 'cross-site' }, 4000)?.status).toBe(403);
    expect(refusal({ ...ok, secFetchSite: 'same-site' }, 4000)?.status).toBe(403);
    expect(refusal({ ...ok, secFetchSite: 'same-origin' }, 4000)).toBeUndefined();
    expect(refusal({ ...ok, secFetchSite: 'none' }, 4000)).toBeUndefined();
  });

  it('answers in the API error shape', () => {
    const bad = JSON.parse(refusalBody(refusal({ ...ok, url: '//x/y' }, 4000)!)) as {
      type: string;
      error: { type: string; message: string };
    };
    expect(bad.type).toBe('error');
    expect(bad.error.type).toBe('invalid_request_error');
    expect(bad.error.message).toMatch(/^Trimline proxy: /);
    const forbidden = JSON.parse(refusalBody(refusal({ ...ok, origin: 'http://evil.example' }, 4000)!)) as {
      error: { type: string };
    };
    expect(forbidden.error.type).toBe('permission_error');
  });
});
