/**
 * Shared fixture of the agent tests: a real app (`createApp`) over a memory
 * database in a temp dir, the real EHR demo data, the real JavaScript runner,
 * and — for the LLM path — the fake OpenAI server with a per-role script.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createApp } from '../../../src/core/app';
import { DEMO_TASKS_FILE, readDemoTasks, type DemoTask } from '../../../src/core/data/ehr-tasks';
import { CODER_SYSTEM_PROMPT } from '../../../src/core/agent/loop/generators';
import { nullLogger } from '../../../src/core/logger';
import { SettingsSchema, type Settings } from '../../../src/core/settings';
import type { FakeOpenAI, FakeStep, RecordedRequest } from '../../support/fake-openai-server';

export const DATA_DIR = path.resolve(__dirname, '../../../data/ehr');
export type App = Awaited<ReturnType<typeof createApp>>;

let demoTasks: DemoTask[] | undefined;
/** The real EHR task file (read once). */
export function ehrTasks(): DemoTask[] {
  demoTasks ??= readDemoTasks(path.join(DATA_DIR, DEMO_TASKS_FILE));
  return demoTasks;
}

export function ehrTask(id: string): DemoTask {
  const task = ehrTasks().find((t) => t.id === id);
  if (!task) throw new Error(`EHR task ${id} not found in the data`);
  return task;
}

export function settingsWith(overrides: { model?: Partial<Settings['model']>; addition?: Partial<Settings['addition']>; agent?: Partial<Settings['agent']> } = {}): Settings {
  return SettingsSchema.parse({
    model: { ...overrides.model },
    retrieval: {},
    addition: { ...overrides.addition },
    deletion: {},
    runner: { language: 'javascript', timeoutMs: 5000 },
    agent: { ...overrides.agent },
    misaligned: {},
  });
}

export interface AppHandle {
  app: App;
  dir: string;
  dispose(): void;
}

/** A fresh app over a new memory database in a temp dir. */
export async function openApp(settings: Settings, dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-test-'))): Promise<AppHandle> {
  const app = await createApp({ databasePath: path.join(dir, 'memory.sqlite'), settings, demoDataDir: DATA_DIR, storageDir: dir, logger: nullLogger });
  return {
    app,
    dir,
    dispose: () => {
      app.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type CallKind = 'coder' | 'debugger' | 'role' | 'other';

/** Which of the agent's prompts a chat request is. */
export function kindOf(request: RecordedRequest): CallKind {
  const first = String(request.body?.messages?.[0]?.content ?? '');
  if (first.startsWith(CODER_SYSTEM_PROMPT)) return 'coder';
  if (first.startsWith('You are the debugger')) return 'debugger';
  if (first.startsWith('You are maintaining the memory')) return 'role';
  return 'other';
}

/**
 * Scripts the fake per kind of call: coder and debugger replies come from
 * their own queues (an empty queue is a test bug → 500 with a clear message);
 * role-memory updates get a valid template reply naming the role and update number.
 */
/** Tokens the fake reports for each role-memory update (they count towards the task's usage). */
export const ROLE_UPDATE_USAGE = { prompt_tokens: 10, completion_tokens: 1 };

export class AgentScript {
  readonly coder: FakeStep[] = [];
  readonly debugger: FakeStep[] = [];
  roleUpdates = 0;

  constructor(private readonly fake: FakeOpenAI) {
    fake.setDefault((request) => {
      const kind = kindOf(request);
      if (kind === 'role') {
        this.roleUpdates++;
        const role = /working as the (\w+)/.exec(String(request.body.messages[0].content))?.[1]?.toLowerCase() ?? 'unknown';
        return { reply: JSON.stringify({ lessons: [`${role} lesson ${this.roleUpdates}`], validPatterns: ['answer = sql("select ...")'], mistakesToAvoid: [] }), usage: ROLE_UPDATE_USAGE };
      }
      const queue = kind === 'coder' ? this.coder : kind === 'debugger' ? this.debugger : undefined;
      const step = queue?.shift();
      return step ?? { status: 500, body: { error: { message: `test script has no ${kind} step left`, type: 'server_error' } } };
    });
  }

  /** Chat requests of one kind, in arrival order. */
  calls(kind: CallKind): RecordedRequest[] {
    return this.fake.requests.filter((r) => r.path.endsWith('/chat/completions') && kindOf(r) === kind);
  }
}

/** A fenced JavaScript reply, as a model would write it. */
export function jsReply(code: string, prose = 'Here is the program:'): string {
  return `${prose}\n\n\`\`\`javascript\n${code}\n\`\`\`\n`;
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Checks the timing fields of a task log are present, finite and consistent. */
export function timingProblems(timings: unknown): string[] {
  const t = timings as Record<string, unknown>;
  const names = ['retrieveMs', 'generateMs', 'runMs', 'overheadMs', 'totalMs'];
  const problems = names.filter((n) => typeof t?.[n] !== 'number' || !Number.isFinite(t[n]) || (t[n]) < 0).map((n) => `${n} = ${String(t?.[n])}`);
  if (problems.length > 0) return problems;
  const { retrieveMs, generateMs, runMs, overheadMs, totalMs } = t as Record<string, number>;
  const eps = 1e-6;
  if (overheadMs > totalMs + eps) problems.push(`overheadMs ${overheadMs} > totalMs ${totalMs}`);
  if (retrieveMs > totalMs + eps) problems.push(`retrieveMs ${retrieveMs} > totalMs ${totalMs}`);
  if (generateMs + runMs > totalMs + eps) problems.push(`generateMs + runMs ${generateMs + runMs} > totalMs ${totalMs}`);
  if (Math.abs(generateMs + runMs + overheadMs - totalMs) > 1e-3) problems.push('generateMs + runMs + overheadMs ≠ totalMs');
  if (retrieveMs > overheadMs + eps) problems.push(`retrieveMs ${retrieveMs} is not part of overheadMs ${overheadMs}`);
  return problems;
}
