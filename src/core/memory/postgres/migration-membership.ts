/**
 * Migration 6 of the team memory (migrations.ts): the membership checks of migration 5, same answers, planned
 * once per session instead of at every statement.
 *
 * Every row-level security policy calls `agent_memory_spaces` (twice per table a statement reads: a search reads
 * `term_stats` once and `records` twice, so six calls), and every owner function and insert trigger calls
 * `agent_memory_require` → `agent_memory_level`. Migration 5 wrote the two as SQL functions; PostgreSQL 15 keeps
 * no plan of a SQL function between statements, and SECURITY DEFINER with its own search_path stops it from being
 * inlined, so each call planned the join of space_members and pg_roles again: 0.3–0.9 ms per call, measured as
 * server CPU about 4.5 ms per search of an agent role against 2 ms for the owner (docs/team-memory.md,
 * "Search speed with row-level security"). As PL/pgSQL functions their statements are planned on first use in a
 * session and the plans kept; the membership itself is still read at every call, so a grant or a revoke applies to
 * the next statement of every open session.
 *
 * The policies keep the form `'*' = ANY ((SELECT …)) OR space = ANY ((SELECT …))`: one sub-select per clause, each
 * run once per statement (an InitPlan). An array-overlap form with one sub-select was tried and measured: the planner's
 * estimate of `&&` is so low that it left the HNSW index for a sequential scan and sort (69 ms at 20k records).
 */

export const MEMBERSHIP_MIGRATION_SQL = `
CREATE OR REPLACE FUNCTION agent_memory_level(p_space text) RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF pg_has_role(session_user, (SELECT relowner FROM pg_class WHERE oid = 'public.records'::regclass), 'MEMBER') THEN
    RETURN 'owner';
  END IF;
  RETURN (SELECT max(m.level) FROM space_members m JOIN pg_roles r ON r.rolname = m.role
          WHERE (m.space = p_space OR m.space = '*') AND pg_has_role(session_user, r.oid, 'MEMBER'));
END $$;

CREATE OR REPLACE FUNCTION agent_memory_spaces(p_level text) RETURNS text[] LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF pg_has_role(session_user, (SELECT relowner FROM pg_class WHERE oid = 'public.records'::regclass), 'MEMBER') THEN
    RETURN ARRAY['*'];
  END IF;
  RETURN coalesce((SELECT array_agg(DISTINCT m.space) FROM space_members m JOIN pg_roles r ON r.rolname = m.role
          WHERE (p_level = 'agent' OR m.level = 'reviewer') AND pg_has_role(session_user, r.oid, 'MEMBER')), '{}');
END $$;
`;
