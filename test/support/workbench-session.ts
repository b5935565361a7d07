/**
 * A code-server + Chromium + loaded workbench session for the UI (e2e) tests, torn down by
 * dispose(). The page actions are the Workbench class's (workbench.ts).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { REPO_ROOT, startCodeServer, workbenchUrl, type CodeServer } from './code-server';
import { launchBrowser } from './chromium';
import { Workbench } from './workbench';

export interface WorkbenchSessionOptions {
  /** 'development': load the repo as the development extension; 'vsix': install `vsix`. */
  mode: 'development' | 'vsix';
  vsix?: string;
  /** Folder to open; a fresh temp folder when omitted. */
  workspaceFolder?: string;
  /** Called with the workspace folder before code-server starts (seed files here). */
  prepareWorkspace?: (folder: string) => void;
}

export interface WorkbenchSession {
  server: CodeServer;
  browser: Browser;
  workbench: Workbench;
  workspaceFolder: string;
  /** Browser console lines seen so far (errors help when a test fails). */
  consoleLines: string[];
  dispose(): Promise<void>;
}

/** code-server + Chromium + loaded workbench, torn down by dispose(). */
export async function startWorkbench(options: WorkbenchSessionOptions): Promise<WorkbenchSession> {
  const ownFolder = !options.workspaceFolder;
  const workspaceFolder = options.workspaceFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-ws-'));
  options.prepareWorkspace?.(workspaceFolder);
  if (options.mode === 'vsix' && !options.vsix) throw new Error("startWorkbench: mode 'vsix' needs options.vsix");
  if (options.mode === 'development' && !fs.existsSync(path.join(REPO_ROOT, 'dist', 'extension.js'))) {
    throw new Error("dist/extension.js missing: run 'npm run build' first");
  }
  const server = await startCodeServer({
    workspaceFolder,
    vsix: options.mode === 'vsix' ? options.vsix : undefined,
    extensionDevelopment: options.mode === 'development',
  });
  const consoleLines: string[] = [];
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const url = workbenchUrl(server, { folder: workspaceFolder, extensionDevelopmentPath: options.mode === 'development' ? REPO_ROOT : undefined });
    const workbench = await Workbench.open(browser, url, (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
    const b = browser;
    return {
      server,
      browser: b,
      workbench,
      workspaceFolder,
      consoleLines,
      dispose: async () => {
        await b.close().catch(() => undefined);
        await server.stop();
        if (ownFolder) fs.rmSync(workspaceFolder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await server.stop();
    throw error;
  }
}
