/** `trimline demo`: the live offline demo (see src/host/standalone/demo.ts); runs until Ctrl+C. */
import { parseArgs } from 'node:util';
import { terminalSafe } from '../protocol/safe-text';
import { startDemo } from '../host/standalone/demo';
import { parsePort } from './inspect';

export async function runDemo(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { port: { type: 'string' }, strategy: { type: 'string', short: 's' } } });
  const log = (line: string): void => void process.stdout.write(`${terminalSafe(line)}\n`);
  const demo = await startDemo({ port: values.port ? parsePort(values.port) : undefined, strategy: values.strategy, log });
  await demo.done;
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await demo.close();
  return 0;
}
