import { errorMessage } from '../../errors';
import { toEhrSqlDialect } from './sql-dialect';
import type { SqlService } from './sql-service';
import { ChildSqlRequestSchema } from './types';

/** The run's own timeout fires first; the SQL cap is the backstop. */
const SQL_GRACE_MS = 1000;

/**
 * The host side of `sql()`: validates a sandbox's toolbox message, applies the
 * EHRSQL dialect and asks the read-only SQL service, with the run's remaining
 * time as the query's time cap. The sandbox never holds a database handle.
 *
 * @example
 * supervise({ ..., onMessage: sqlBridge(service, runId, req.now, Date.now() + req.limits.timeoutMs) });
 */
export function sqlBridge(service: SqlService, runId: number, now: string, deadline: number) {
  return (message: unknown, reply: (value: unknown) => void): void => {
    const parsed = ChildSqlRequestSchema.safeParse(message);
    if (!parsed.success) {
      reply({ ok: false, error: { kind: 'ProtocolError', message: 'malformed toolbox request' } });
      return;
    }
    const sqlRequest = { ...parsed.data, query: toEhrSqlDialect(parsed.data.query, now) };
    service.query(runId, sqlRequest, deadline - Date.now() + SQL_GRACE_MS).then(reply, (error: unknown) =>
      reply({ ok: false, error: { kind: 'SqlError', message: errorMessage(error) } }),
    );
  };
}

/** Keeps one SqlService per database file for a runner. */
export class SqlServices {
  private readonly services = new Map<string, SqlService>();
  constructor(private readonly create: (databasePath: string) => SqlService) {}

  for(databasePath: string): SqlService {
    let service = this.services.get(databasePath);
    if (!service) {
      service = this.create(databasePath);
      this.services.set(databasePath, service);
    }
    return service;
  }

  dispose(): void {
    for (const service of this.services.values()) service.dispose();
    this.services.clear();
  }
}
