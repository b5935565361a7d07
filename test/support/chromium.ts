/** The system Chromium the UI tests drive (playwright-core, no browser download). */
import * as fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.AGENT_MEMORY_CHROMIUM ?? '/usr/bin/chromium';
/** Flags that keep Chromium from flooding the closed network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Launches headless system Chromium with a fresh profile; throws a clear error when absent. */
export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run 'bash scripts/bootstrap.sh' (apt-get install chromium)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

