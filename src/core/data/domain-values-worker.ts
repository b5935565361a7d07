/**
 * Worker-thread entry of readDomainValuesOffThread (domain-values-reader.ts):
 * scans the agent database's text columns and keys their value phrases here,
 * off the caller's thread, and posts the grouped phrases back once, packed
 * into one string (DomainValues.pack).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { errorMessage } from '../errors';
import { DomainValues } from '../memory/search/domain-values';
import { DomainValuesMessage, readGroupedDomainValues } from './domain-values-reader';

const WorkerDataSchema = z.object({ file: z.string().min(1) });

function main(): void {
  const port = parentPort;
  if (!port) return;
  let message: DomainValuesMessage;
  try {
    const { file } = WorkerDataSchema.parse(workerData);
    message = { type: 'values', packed: DomainValues.pack(readGroupedDomainValues(file)) };
  } catch (error) {
    message = { type: 'failed', message: errorMessage(error) };
  }
  port.postMessage(message);
}

main();
