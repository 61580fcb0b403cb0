/**
 * `trimline demo`: the live offline demo (see src/host/standalone/demo.ts); runs until Ctrl+C.
 * Port: --port, else $PORT.
 */
import { terminalSafe } from '../protocol/safe-text';
import { startDemo } from '../host/standalone/demo';
import { parsePort } from './inspect';
import { parseCommand } from './args';
import { DEMO_COMMAND } from './commands';
import { UsageError } from './common';

export async function runDemo(args: string[]): Promise<number> {
  const { values } = parseCommand(DEMO_COMMAND, args);
  // `npm start` runs the demo: PORT chooses its port, as for most dev servers.
  const env = values.port === undefined ? process.env.PORT || undefined : undefined;
  if (env !== undefined && !/^\d{1,5}$/.test(env)) {
    throw new UsageError(`demo: PORT must be a port number 0–65535, got "${env}"`);
  }
  const port = values.port ?? env;
  const log = (line: string): void => void process.stdout.write(`${terminalSafe(line)}\n`);
  const listen = port !== undefined ? parsePort(port) : undefined;
  const demo = await startDemo({ port: listen, strategy: values.strategy, log });
  await demo.done;
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await demo.close();
  return 0;
}
