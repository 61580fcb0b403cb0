/**
 * CLI entry of the test server (bundled as dist/dev-server.js):
 *
 *   node dist/dev-server.js [--port N] [--host H] [--api-key K] [--fallback demo|echo|fail]
 *                           [--context-window N] [--seed N]
 *
 * Prints the base URL to use as ANTHROPIC_BASE_URL and logs one line per request.
 */
import { startTestServer, type TestServerOptions } from './server';

const DEFAULT_PORT = 8787;

function parseArgs(argv: readonly string[]): TestServerOptions & { help?: boolean } {
  const out: { -readonly [K in keyof TestServerOptions]: TestServerOptions[K] } & { help?: boolean } = {
    port: DEFAULT_PORT,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    const int = (): number => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 0) throw new Error(`${arg} needs a non-negative integer`);
      return n;
    };
    switch (arg) {
      case '--port':
        out.port = int();
        break;
      case '--host':
        out.host = value();
        break;
      case '--api-key':
        out.apiKey = value();
        break;
      case '--fallback': {
        const f = value();
        if (f !== 'demo' && f !== 'echo' && f !== 'fail') throw new Error('--fallback must be demo, echo or fail');
        out.fallback = f;
        break;
      }
      case '--context-window':
        out.contextWindow = int();
        break;
      case '--seed':
        out.seed = int();
        break;
      case '-h':
      case '--help':
        out.help = true;
        break;
      default:
        throw new Error(`unknown argument: ${arg}`);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(
      'usage: dev-server [--port N] [--host H] [--api-key K] [--fallback demo|echo|fail] [--context-window N] ' +
        '[--seed N]\n',
    );
    return;
  }
  const server = await startTestServer(opts);
  process.stdout.write(`Trimline test server (Anthropic-compatible) listening on ${server.url}\n`);
  process.stdout.write(`  export ANTHROPIC_BASE_URL=${server.url}\n`);
  let logged = 0;
  const timer = setInterval(() => {
    for (; logged < server.requests.length; logged++) {
      const r = server.requests[logged];
      const res = r.response;
      if (!res) break;
      const usage = res.usage
        ? ` in=${res.usage.input_tokens} write=${res.usage.cache_creation_input_tokens} ` +
          `read=${res.usage.cache_read_input_tokens} out=${res.usage.output_tokens}`
        : '';
      const why = r.validation.ok ? '' : ` ${r.validation.message ?? ''}`;
      process.stdout.write(`#${r.seq} ${r.method} ${r.path} -> ${res.status}${usage}${why}\n`);
    }
  }, 200);
  const stop = (): void => {
    clearInterval(timer);
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`dev-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
