import BetterSqlite3 from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError, errorMessage } from '../../errors';
import { Logger } from '../../logger';

/**
 * The two native pieces of the store, found by explicit path:
 * - better-sqlite3 (Node-API: one prebuild per platform serves every Node ≥ 22 and Electron),
 * - the sqlite-vec loadable (`vec0.so/.dylib/.dll`), shipped in the VSIX under
 *   `native/sqlite-vec-<os>-<arch>/` (scripts/package.sh fetches all five published ones) or,
 *   in a checkout, in `node_modules/sqlite-vec-<os>-<arch>/`.
 * Where sqlite-vec has no binary (win32-arm64, musl) or it fails to load, the memory still
 * opens: the dense side then works from the stored float vectors in-process (DenseIndex), and
 * {@link vectorExtensionStatus} says so (one log line, and a status item in the editor).
 */

/** better-sqlite3 13 ships prebuilds for these `<platform>-<arch>` targets (lib/binding.js). */
export const SQLITE_PREBUILD_TARGETS = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'linuxmusl-arm64', 'linuxmusl-x64', 'win32-arm64', 'win32-x64'] as const;
/** sqlite-vec 0.1.9 publishes loadables for these targets (npm packages sqlite-vec-<target>). */
export const SQLITE_VEC_TARGETS = ['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'windows-x64'] as const;
/**
 * Environment override for the sqlite-vec loadable: a file path to load instead of the bundled
 * one, or `none` to run without the extension (the in-process fallback; used by its tests).
 */
export const SQLITE_VEC_ENV = 'AGENT_MEMORY_SQLITE_VEC';

/** `<platform>-<arch>` as better-sqlite3 names it (`linuxmusl-…` on musl libc). */
export function nativeTarget(platform: NodeJS.Platform = process.platform, arch: string = process.arch, musl: boolean = isMusl(platform)): string {
  return `${platform === 'linux' && musl ? 'linuxmusl' : platform}-${arch}`;
}

/** The sqlite-vec package target for this process, or null where none is published. */
export function sqliteVecTarget(platform: NodeJS.Platform = process.platform, arch: string = process.arch, musl: boolean = isMusl(platform)): string | null {
  if (platform === 'linux' && musl) return null;
  const target = `${platform === 'win32' ? 'windows' : platform}-${arch}`;
  return (SQLITE_VEC_TARGETS as readonly string[]).includes(target) ? target : null;
}

let muslCache: boolean | undefined;
function isMusl(platform: NodeJS.Platform): boolean {
  if (platform !== 'linux') return false;
  if (muslCache === undefined) {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    muslCache = header !== undefined && !header.glibcVersionRuntime;
  }
  return muslCache;
}

/** Whether the sqlite-vec extension is loaded into a connection; and if not, why. */
export interface VectorExtensionStatus {
  loaded: boolean;
  /** The loadable's path (when loaded). */
  file?: string;
  /** Why it is not loaded (when not). */
  reason?: string;
  target: string;
}

const statusOf = new WeakMap<BetterSqlite3.Database, VectorExtensionStatus>();
let lastStatus: VectorExtensionStatus | undefined;
let fallbackLogged = false;

/** The extension status of a connection opened by openDatabase (loaded when unknown: a connection not opened here). */
export function vectorExtensionOf(db: BetterSqlite3.Database): VectorExtensionStatus {
  return statusOf.get(db) ?? { loaded: true, target: nativeTarget() };
}

/** @internal Tests: let the next fallback log its line again. */
export function resetVectorExtensionWarning(): void {
  fallbackLogged = false;
}

/** The status of the last connection this process opened (for the editor's status item), if any. */
export function vectorExtensionStatus(): VectorExtensionStatus | undefined {
  return lastStatus;
}

/**
 * Candidate paths of the sqlite-vec loadable for `target`: every folder from this module
 * upwards, in `native/` (the VSIX) and `node_modules/` (a checkout or an npm install).
 */
export function sqliteVecCandidates(target: string, start: string = __dirname): string[] {
  const file = `vec0.${target.startsWith('windows') ? 'dll' : target.startsWith('darwin') ? 'dylib' : 'so'}`;
  const out: string[] = [];
  for (let dir = start, i = 0; i < 8; i++) {
    out.push(path.join(dir, 'native', `sqlite-vec-${target}`, file), path.join(dir, 'node_modules', `sqlite-vec-${target}`, file));
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}

/**
 * Loads sqlite-vec into `db` by explicit path. Never throws: when there is no binary for this
 * platform, or it does not load, the connection is marked as running without it (see above),
 * and the first time in the process one warning says so.
 */
export function loadVectorExtension(db: BetterSqlite3.Database, logger: Logger): VectorExtensionStatus {
  const target = nativeTarget();
  const override = process.env[SQLITE_VEC_ENV]?.trim();
  let status: VectorExtensionStatus;
  if (override === 'none') {
    status = { loaded: false, target, reason: `${SQLITE_VEC_ENV}=none` };
  } else {
    const vecTarget = sqliteVecTarget();
    const file = override || (vecTarget ? sqliteVecCandidates(vecTarget).find((f) => fs.existsSync(f)) : undefined);
    if (!file) {
      status = { loaded: false, target, reason: vecTarget ? `no sqlite-vec-${vecTarget} binary beside the extension` : `sqlite-vec publishes no binary for ${target}` };
    } else {
      try {
        db.loadExtension(file);
        status = { loaded: true, target, file };
      } catch (error) {
        status = { loaded: false, target, reason: `${file} does not load (${errorMessage(error)})` };
      }
    }
  }
  statusOf.set(db, status);
  lastStatus = status;
  if (!status.loaded && !fallbackLogged) {
    fallbackLogged = true;
    logger.warn(`[store] sqlite-vec is not available on ${target} (${status.reason}): dense retrieval runs in-process over the stored vectors (same results, slower on large memories).`);
  }
  return status;
}

/** better-sqlite3 13's prebuilds are Node-API 10 (Node ≥ 22.14, Electron of VS Code ≥ 1.101). */
export const REQUIRED_NODE_API = 10;

/**
 * Throws a NATIVE_MODULE error when this runtime's Node-API is older than the prebuilds need.
 * Checked before the binary is first used: on Node 20 (Node-API 9) loading it crashes the
 * process with a segmentation fault instead of throwing.
 */
export function assertNodeApi(runtime: { napi?: string; node: string } = process.versions): void {
  const { napi, node } = runtime;
  const version = Number(napi ?? 0);
  if (version >= REQUIRED_NODE_API) return;
  throw new AgentMemoryError(
    'NATIVE_MODULE',
    `Agent Memory needs Node ≥ 22.14 (Node-API ${REQUIRED_NODE_API}) for its SQLite binary; this is Node ${node} (Node-API ${napi ?? 'unknown'}). Install Node 22.14 or newer (or VS Code ≥ 1.101) and run it again.`,
    { node, napi: napi ?? null },
  );
}

/** Opens a better-sqlite3 connection; a missing or unloadable native binary becomes a typed error that names the platform. */
export function openConnection(file: string, options: BetterSqlite3.Options): BetterSqlite3.Database {
  assertNodeApi();
  try {
    return new BetterSqlite3(file, options);
  } catch (error) {
    if (isNativeLoadError(error)) throw nativeModuleError(error);
    throw error;
  }
}

function isNativeLoadError(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  return code === 'MODULE_NOT_FOUND' || code === 'ERR_DLOPEN_FAILED' || /better_sqlite3\.node|prebuilds[\\/]|NODE_MODULE_VERSION|invalid ELF header|wrong ELF class|not a valid Win32 application|Mach-O/i.test(errorMessage(error));
}

/** The typed error for a platform without a usable better-sqlite3 binary. */
export function nativeModuleError(error: unknown, target: string = nativeTarget()): AgentMemoryError {
  const supported = (SQLITE_PREBUILD_TARGETS as readonly string[]).includes(target);
  const what = supported
    ? `Its SQLite binary for ${target} is missing or does not load here (${errorMessage(error)}). Reinstall the extension (or, in a checkout, run npm ci) so node_modules/better-sqlite3/prebuilds/${target}.node is present; it needs Node ≥ 22.14 (VS Code ≥ 1.101).`
    : `better-sqlite3 ships no SQLite binary for ${target} (it has ${SQLITE_PREBUILD_TARGETS.join(', ')}). Build one: in the extension's node_modules/better-sqlite3 folder run "npx node-gyp rebuild --release" (needs Python and a C++ compiler), then reload the window.`;
  return new AgentMemoryError('NATIVE_MODULE', `Agent Memory cannot open its database on this platform (${target}). ${what}`, { target, supported }, { cause: error });
}
