/**
 * Migration 5 of the team memory (migrations.ts): roles per space, enforced by the server.
 * - `space_members` (written by the schema owner only, `team-grant`): a role is an `agent` or a
 *   `reviewer` of a space (or of every space, `*`: the single-trust setup of `team-setup --app-role`).
 * - Row-level security on every table holding a space's rows, keyed on the membership of the
 *   authenticated login (`session_user`, so `SET ROLE` changes nothing).
 * - Status changes, counters, the task sequence and the addition policy go through owner
 *   `SECURITY DEFINER` functions (search_path fixed) that check the caller's level and inputs.
 * - Ids (records.rid, audit.id, retrievals.id) are assigned by owner triggers: application roles
 *   hold no right on any sequence (no `setval`, no forged id colliding with another client's).
 * - The audit is append-only for application roles; each entry carries the server-side actor
 *   (`actor_role` = session_user, beside the client's self-description) and the hash of the
 *   previous entry of its space (`prev_hash`, `hash`; the head in `audit_chain_heads`).
 * See docs/team-threat-model.md.
 */

/** Fields of an audit entry in the order they are hashed (audit-chain.ts computes the same in TypeScript). */
export const AUDIT_HASH_FIELDS = ['id', 'space', 'at', 'operation', 'record_id', 'trigger', 'reason', 'evidence', 'actor_user', 'actor_client', 'actor_role', 'prev_hash'] as const;

/** `octet_length:value` per field (a NULL record id is `-`), so no field's text can shift into the next. */
const HASH_INPUT = AUDIT_HASH_FIELDS.map((f) =>
  f === 'record_id' ? "CASE WHEN a.record_id IS NULL THEN '-' ELSE octet_length(a.record_id)::text || ':' || a.record_id END" : `octet_length(a.${f}::text)::text || ':' || a.${f}::text`,
).join(" || '|' || ");

const READ = "('*' = ANY ((SELECT agent_memory_spaces('agent'))::text[]) OR space = ANY ((SELECT agent_memory_spaces('agent'))::text[]))";
const REVIEW = "('*' = ANY ((SELECT agent_memory_spaces('reviewer'))::text[]) OR space = ANY ((SELECT agent_memory_spaces('reviewer'))::text[]))";

export const ROLES_MIGRATION_SQL = `
CREATE TABLE space_members (
  space text NOT NULL CHECK (space = '*' OR space ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$'),
  role name NOT NULL,
  level text NOT NULL CHECK (level IN ('agent', 'reviewer')),
  granted_at timestamptz NOT NULL DEFAULT now(),
  granted_by name NOT NULL DEFAULT session_user,
  PRIMARY KEY (space, role)
);

-- The caller's level in a space: 'owner' (the tables' owner, or a role in it), 'reviewer', 'agent' or NULL.
CREATE FUNCTION agent_memory_level(p_space text) RETURNS text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT CASE
    WHEN pg_has_role(session_user, (SELECT relowner FROM pg_class WHERE oid = 'public.records'::regclass), 'MEMBER') THEN 'owner'
    ELSE (SELECT max(m.level) FROM space_members m JOIN pg_roles r ON r.rolname = m.role
          WHERE (m.space = p_space OR m.space = '*') AND pg_has_role(session_user, r.oid, 'MEMBER'))
  END
$$;

-- The spaces the caller holds at least p_level in ('*': all of them). Row-level security evaluates it once per statement.
CREATE FUNCTION agent_memory_spaces(p_level text) RETURNS text[] LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT CASE
    WHEN pg_has_role(session_user, (SELECT relowner FROM pg_class WHERE oid = 'public.records'::regclass), 'MEMBER') THEN ARRAY['*']
    ELSE coalesce((SELECT array_agg(DISTINCT m.space) FROM space_members m JOIN pg_roles r ON r.rolname = m.role
          WHERE (p_level = 'agent' OR m.level = 'reviewer') AND pg_has_role(session_user, r.oid, 'MEMBER')), '{}')
  END
$$;

-- Refuses (42501, insufficient_privilege) a caller below p_level in p_space; returns the caller's level.
CREATE FUNCTION agent_memory_require(p_space text, p_level text) RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE l text := agent_memory_level(p_space);
BEGIN
  IF l IS NULL OR (p_level = 'reviewer' AND l = 'agent') THEN
    RAISE EXCEPTION USING ERRCODE = '42501',
      MESSAGE = format('role %s is not %s of space %s', session_user, CASE WHEN p_level = 'reviewer' THEN 'a reviewer' ELSE 'a member' END, p_space),
      HINT = format('the owner grants it: agent-memory team-grant --role %s --space %s --as %s', session_user, p_space, p_level);
  END IF;
  RETURN l;
END $$;

-- ---------------------------------------------------------------- ids assigned by the server
ALTER TABLE records ALTER COLUMN rid DROP DEFAULT;
ALTER TABLE audit ALTER COLUMN id DROP DEFAULT;
ALTER TABLE retrievals ALTER COLUMN id DROP DEFAULT;
ALTER FUNCTION agent_memory_record_changed() SECURITY DEFINER SET search_path = public, pg_temp;

-- A record written by an agent: pending under the space's strict policy whatever it sent, with no counters of its own.
CREATE FUNCTION agent_memory_record_inserting() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  -- The space's audit lock first (its audit entry follows): every audited writer takes it before any row lock.
  PERFORM pg_advisory_xact_lock(hashtextextended('agent_memory_audit:' || NEW.space, 0));
  -- Refused before an id is drawn (the row-level security check comes after BEFORE triggers).
  IF agent_memory_require(NEW.space, 'agent') = 'agent' THEN
    IF NEW.status = 'active' AND coalesce((SELECT value FROM meta WHERE space = NEW.space AND key = 'addition_policy'), 'strict') = 'strict' THEN
      NEW.status := 'pending';
    END IF;
    NEW.retrieval_count := 0; NEW.utility_sum := 0; NEW.utility_count := 0; NEW.last_retrieved_task := NULL;
    NEW.in_sim_sum := 0; NEW.in_sim_count := 0; NEW.out_sim_sum := 0; NEW.out_sim_count := 0; NEW.merged_count := 1;
    NEW.stale := false; NEW.check_state := NULL; NEW.check_fingerprint := NULL; NEW.check_answer := NULL; NEW.check_error := NULL; NEW.checked_at := NULL;
  END IF;
  NEW.rid := nextval('records_rid_seq');
  RETURN NEW;
END $$;
CREATE TRIGGER records_inserting BEFORE INSERT ON records FOR EACH ROW EXECUTE FUNCTION agent_memory_record_inserting();

CREATE FUNCTION agent_memory_retrieval_inserting() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(NEW.space, 'agent');
  NEW.id := nextval('retrievals_id_seq');
  RETURN NEW;
END $$;
CREATE TRIGGER retrievals_inserting BEFORE INSERT ON retrievals FOR EACH ROW EXECUTE FUNCTION agent_memory_retrieval_inserting();

-- ---------------------------------------------------------------- the audit: server-side actor, hash chain
ALTER TABLE audit ADD COLUMN actor_role text NOT NULL DEFAULT '', ADD COLUMN prev_hash text NOT NULL DEFAULT '', ADD COLUMN hash text NOT NULL DEFAULT '';
CREATE TABLE audit_chain_heads (space text PRIMARY KEY, last_id bigint NOT NULL, last_hash text NOT NULL, entries bigint NOT NULL);
-- The audit of a space replaced by restore --replace: kept, not erased.
CREATE TABLE audit_archive (LIKE audit, archived_at timestamptz NOT NULL DEFAULT now(), archived_by name NOT NULL DEFAULT session_user);
CREATE INDEX audit_archive_space ON audit_archive(space, id);
CREATE INDEX audit_space_id ON audit(space, id);

CREATE FUNCTION agent_memory_audit_hash(a audit) RETURNS text LANGUAGE sql IMMUTABLE SET search_path = public, pg_temp AS $$
  SELECT encode(sha256(convert_to(${HASH_INPUT}, 'UTF8')), 'hex')
$$;

CREATE FUNCTION agent_memory_audit_inserting() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE head audit_chain_heads;
BEGIN
  PERFORM agent_memory_require(NEW.space, 'agent');
  -- One writer per space at a time (until commit): the entries of a space form one chain, in id order.
  PERFORM pg_advisory_xact_lock(hashtextextended('agent_memory_audit:' || NEW.space, 0));
  NEW.id := nextval('audit_id_seq');
  NEW.actor_role := session_user;
  SELECT * INTO head FROM audit_chain_heads WHERE space = NEW.space;
  NEW.prev_hash := coalesce(head.last_hash, '');
  NEW.hash := agent_memory_audit_hash(NEW);
  INSERT INTO audit_chain_heads (space, last_id, last_hash, entries) VALUES (NEW.space, NEW.id, NEW.hash, 1)
    ON CONFLICT (space) DO UPDATE SET last_id = EXCLUDED.last_id, last_hash = EXCLUDED.last_hash, entries = audit_chain_heads.entries + 1;
  RETURN NEW;
END $$;
CREATE TRIGGER audit_inserting BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION agent_memory_audit_inserting();

-- The entries already stored: chained in id order, per space.
DO $$
DECLARE a audit; prev text := ''; cur text := NULL;
BEGIN
  FOR a IN SELECT * FROM audit ORDER BY space, id LOOP
    IF cur IS DISTINCT FROM a.space THEN prev := ''; cur := a.space; END IF;
    a.actor_role := a.actor_user;
    a.prev_hash := prev;
    a.hash := agent_memory_audit_hash(a);
    UPDATE audit SET actor_role = a.actor_role, prev_hash = a.prev_hash, hash = a.hash WHERE id = a.id;
    INSERT INTO audit_chain_heads (space, last_id, last_hash, entries) VALUES (a.space, a.id, a.hash, 1)
      ON CONFLICT (space) DO UPDATE SET last_id = EXCLUDED.last_id, last_hash = EXCLUDED.last_hash, entries = audit_chain_heads.entries + 1;
    prev := a.hash;
  END LOOP;
END $$;

-- ---------------------------------------------------------------- functions the application roles call
CREATE FUNCTION agent_memory_begin_task(p_space text, p_question text, p_started text) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE t bigint;
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  INSERT INTO tasks (space, task_index, question, started_at) VALUES (p_space, nextval('task_index_seq'), p_question, p_started) RETURNING task_index INTO t;
  RETURN t;
END $$;

-- After a restore wrote its task log: the sequence never hands out an index the space's log uses.
CREATE FUNCTION agent_memory_after_task_restore(p_space text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE top bigint;
BEGIN
  PERFORM agent_memory_require(p_space, 'reviewer');
  SELECT max(task_index) INTO top FROM tasks WHERE space = p_space;
  IF top > 9007199254740991 THEN RAISE EXCEPTION USING ERRCODE = '22003', MESSAGE = 'a task index above 2^53 was refused'; END IF;
  IF top IS NOT NULL THEN PERFORM setval('task_index_seq', GREATEST(top, (SELECT last_value FROM task_index_seq))); END IF;
END $$;

CREATE FUNCTION agent_memory_log_retrievals(p_space text, p_task bigint, p_ids text[], p_ranks int[], p_sims float8[]) RETURNS SETOF text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  IF NOT EXISTS (SELECT 1 FROM tasks WHERE space = p_space AND task_index = p_task) THEN
    RAISE EXCEPTION USING ERRCODE = 'P0002', MESSAGE = format('no task %s in space %s', p_task, p_space);
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(p_ranks, p_sims) AS x(rank, sim) WHERE x.rank < 0 OR x.sim < -1 OR x.sim > 1 OR x.sim = 'NaN') THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'a retrieval rank must be ≥ 0 and a similarity within [-1, 1]';
  END IF;
  RETURN QUERY
    WITH input AS (SELECT * FROM unnest(p_ids, p_ranks, p_sims) AS t(id, rank, sim)),
    ins AS (
      INSERT INTO retrievals (space, task_index, rid, rank, input_similarity)
      SELECT p_space, p_task, r.rid, i.rank, i.sim FROM input i JOIN records r ON r.space = p_space AND r.id = i.id
      ON CONFLICT (space, task_index, rid) DO NOTHING RETURNING retrievals.rid, retrievals.input_similarity),
    -- Records locked in rid order: two clients crediting overlapping records cannot deadlock.
    locked AS (SELECT r.rid FROM records r WHERE r.rid IN (SELECT ins.rid FROM ins) ORDER BY r.rid FOR UPDATE)
    UPDATE records SET retrieval_count = retrieval_count + 1,
      last_retrieved_task = GREATEST(COALESCE(last_retrieved_task, 0), p_task),
      in_sim_sum = in_sim_sum + COALESCE(ins.input_similarity, 0),
      in_sim_count = in_sim_count + (ins.input_similarity IS NOT NULL)::int
    FROM ins JOIN locked USING (rid) WHERE records.rid = ins.rid RETURNING records.id;
END $$;

CREATE FUNCTION agent_memory_set_utility(p_space text, p_task bigint, p_phi float8, p_evaluator text) RETURNS SETOF text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  IF p_phi IS NULL OR NOT (p_phi >= 0 AND p_phi <= 1) THEN RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'a utility is within [0, 1]'; END IF;
  RETURN QUERY
    WITH old AS (
      SELECT t.id, t.rid, t.utility FROM retrievals t
      WHERE t.space = p_space AND t.task_index = p_task AND t.shown = 1 AND (t.followed IS NULL OR t.followed <> 0) FOR UPDATE),
    upd AS (UPDATE retrievals t SET utility = p_phi FROM old WHERE t.id = old.id RETURNING t.rid, old.utility AS before),
    locked AS (SELECT r.rid FROM records r WHERE r.rid IN (SELECT old.rid FROM old) ORDER BY r.rid FOR UPDATE)
    UPDATE records SET utility_sum = utility_sum + p_phi - COALESCE(upd.before, 0), utility_count = utility_count + (upd.before IS NULL)::int
    FROM upd JOIN locked USING (rid) WHERE records.rid = upd.rid RETURNING records.id;
  UPDATE tasks SET utility = p_phi, evaluator = p_evaluator WHERE space = p_space AND task_index = p_task;
END $$;

CREATE FUNCTION agent_memory_set_output_similarity(p_space text, p_task bigint, p_id text, p_value float8) RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE x_rid bigint; x_before float8;
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  IF p_value IS NULL OR NOT (p_value >= 0 AND p_value <= 1) THEN RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'a similarity is within [0, 1]'; END IF;
  WITH old AS (
    SELECT t.id, t.rid, t.output_similarity AS before FROM retrievals t JOIN records r ON r.rid = t.rid
    WHERE t.space = p_space AND t.task_index = p_task AND r.space = p_space AND r.id = p_id FOR UPDATE OF t)
  UPDATE retrievals t SET output_similarity = p_value FROM old WHERE t.id = old.id RETURNING t.rid, old.before INTO x_rid, x_before;
  IF NOT FOUND THEN RETURN false; END IF;
  UPDATE records SET out_sim_sum = out_sim_sum - COALESCE(x_before, 0) + p_value, out_sim_count = out_sim_count + (x_before IS NULL)::int WHERE rid = x_rid;
  RETURN true;
END $$;

CREATE FUNCTION agent_memory_mark_not_shown(p_space text, p_task bigint, p_ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  UPDATE retrievals t SET shown = 0 FROM records r
  WHERE t.space = p_space AND t.task_index = p_task AND t.utility IS NULL AND r.rid = t.rid AND r.space = p_space AND r.id = ANY(p_ids);
END $$;

-- The task's not-yet-evaluated retrieval rows marked followed (credited: the ids given) or not (no Φ from set_utility).
CREATE FUNCTION agent_memory_mark_credit(p_space text, p_task bigint, p_ids text[]) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  UPDATE retrievals t SET followed = CASE WHEN r.id = ANY(p_ids) THEN 1 ELSE 0 END FROM records r
  WHERE t.space = p_space AND t.task_index = p_task AND t.utility IS NULL AND r.rid = t.rid AND r.space = p_space;
END $$;

-- An identical addition merged into the space's oldest active or pending twin.
CREATE FUNCTION agent_memory_merge_twin(p_space text, p_key text, p_now text) RETURNS TABLE (id text, merged_count bigint) LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  PERFORM pg_advisory_xact_lock(hashtextextended('agent_memory_audit:' || p_space, 0));
  RETURN QUERY UPDATE records r SET merged_count = r.merged_count + 1, updated_at = p_now
    WHERE r.rid = (SELECT x.rid FROM records x WHERE x.space = p_space AND x.dedup_key = p_key AND x.status IN ('active','pending') ORDER BY x.rid LIMIT 1)
    RETURNING r.id, r.merged_count;
END $$;

-- A reviewer's status changes: lock, then set (the rules are TransitionRules in the client; the server checks who and where).
CREATE FUNCTION agent_memory_lock_records(p_space text, p_ids text[]) RETURNS TABLE (rid bigint, id text, status text, status_before_delete text) LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'reviewer');
  PERFORM pg_advisory_xact_lock(hashtextextended('agent_memory_audit:' || p_space, 0));
  RETURN QUERY SELECT r.rid, r.id, r.status, r.status_before_delete FROM records r WHERE r.space = p_space AND r.id = ANY(p_ids) ORDER BY r.rid FOR UPDATE;
END $$;

CREATE FUNCTION agent_memory_set_status(p_space text, p_rids bigint[], p_next text[], p_before text[], p_now text) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE n integer;
BEGIN
  PERFORM agent_memory_require(p_space, 'reviewer');
  UPDATE records r SET status = x.next, status_before_delete = x.before, updated_at = p_now
    FROM unnest(p_rids, p_next, p_before) AS x(rid, next, before) WHERE r.rid = x.rid AND r.space = p_space;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

CREATE FUNCTION agent_memory_purge(p_space text, p_rids bigint[]) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE n integer;
BEGIN
  PERFORM agent_memory_require(p_space, 'reviewer');
  DELETE FROM records WHERE rid = ANY(p_rids) AND space = p_space;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;

CREATE FUNCTION agent_memory_set_policy(p_space text, p_policy text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'reviewer');
  IF p_policy NOT IN ('fixed', 'all', 'coarse', 'strict') THEN RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('unknown addition policy %s', p_policy); END IF;
  INSERT INTO meta (space, key, value) VALUES (p_space, 'addition_policy', p_policy) ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value;
END $$;

-- restore --replace: the space's audit moves to audit_archive (kept), its rows are deleted; the caller writes the restored content
-- and its own audit entry in the same transaction.
CREATE FUNCTION agent_memory_replace_space(p_space text) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE n integer;
BEGIN
  PERFORM agent_memory_require(p_space, 'reviewer');
  PERFORM pg_advisory_xact_lock(hashtextextended('agent_memory_audit:' || p_space, 0));
  INSERT INTO audit_archive SELECT a.*, now(), session_user FROM audit a WHERE a.space = p_space ORDER BY a.id;
  SELECT count(*) INTO n FROM records WHERE space = p_space;
  DELETE FROM retrievals WHERE space = p_space;
  DELETE FROM records WHERE space = p_space;
  DELETE FROM tasks WHERE space = p_space;
  DELETE FROM audit WHERE space = p_space;
  DELETE FROM audit_chain_heads WHERE space = p_space;
  DELETE FROM meta WHERE space = p_space AND key IN ('embedder_id', 'embedder_dim');
  RETURN n;
END $$;

-- The keyword side of a search: '@@' is not leakproof, so under row-level security PostgreSQL may not use the GIN
-- index for a member's query (the policy must be evaluated first). The owner's function checks the caller's level
-- once and runs the candidate query unfiltered by the policies (team-search.ts; \`small\`: the space read through its btree).
CREATE FUNCTION agent_memory_keyword_sql(p_small boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format('SELECT r.rid, r.tsv FROM records r WHERE %s AND r.status = ''active'' AND r.tsv @@ $2 LIMIT $3',
    CASE WHEN p_small THEN 'r.space = $1' ELSE 'r.space || '''' = $1' END)
$$;
CREATE FUNCTION agent_memory_keyword_candidates(p_space text, p_query tsquery, p_limit integer, p_small boolean) RETURNS TABLE (rid bigint, tsv tsvector) LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  -- Static statements (their plans are cached per session), the same as agent_memory_keyword_sql writes.
  IF p_small THEN
    RETURN QUERY SELECT r.rid, r.tsv FROM records r WHERE r.space = p_space AND r.status = 'active' AND r.tsv @@ p_query LIMIT p_limit;
  ELSE
    RETURN QUERY SELECT r.rid, r.tsv FROM records r WHERE r.space || '' = p_space AND r.status = 'active' AND r.tsv @@ p_query LIMIT p_limit;
  END IF;
END $$;
-- Its plan (explainSearch): what the function runs, for the space's members.
CREATE FUNCTION agent_memory_keyword_plan(p_space text, p_query tsquery, p_limit integer, p_small boolean, p_analyze boolean) RETURNS SETOF text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  RETURN QUERY EXECUTE 'EXPLAIN (' || CASE WHEN p_analyze THEN 'ANALYZE, ' ELSE '' END || 'COSTS OFF) ' || agent_memory_keyword_sql(p_small) USING p_space, p_query, p_limit;
END $$;

-- ---------------------------------------------------------------- row-level security
ALTER TABLE records ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON records FOR SELECT USING ${READ};
CREATE POLICY members_add ON records FOR INSERT WITH CHECK ${READ};
CREATE POLICY reviewers_update ON records FOR UPDATE USING ${REVIEW} WITH CHECK ${REVIEW};
ALTER TABLE retrievals ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON retrievals FOR SELECT USING ${READ};
CREATE POLICY reviewers_restore ON retrievals FOR INSERT WITH CHECK ${REVIEW};
ALTER TABLE tasks ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON tasks FOR SELECT USING ${READ};
CREATE POLICY reviewers_restore ON tasks FOR INSERT WITH CHECK ${REVIEW};
CREATE POLICY members_finish ON tasks FOR UPDATE USING ${READ} WITH CHECK ${READ};
ALTER TABLE audit ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON audit FOR SELECT USING ${READ};
CREATE POLICY members_append ON audit FOR INSERT WITH CHECK ${READ};
ALTER TABLE audit_archive ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON audit_archive FOR SELECT USING ${READ};
ALTER TABLE audit_chain_heads ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON audit_chain_heads FOR SELECT USING ${READ};
ALTER TABLE change_log ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON change_log FOR SELECT USING ${READ};
ALTER TABLE term_stats ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON term_stats FOR SELECT USING ${READ};
ALTER TABLE role_memories ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON role_memories FOR SELECT USING ${READ};
CREATE POLICY members_write ON role_memories FOR INSERT WITH CHECK ${READ};
CREATE POLICY members_update ON role_memories FOR UPDATE USING ${READ} WITH CHECK ${READ};
ALTER TABLE meta ENABLE ROW LEVEL SECURITY;
CREATE POLICY members_read ON meta FOR SELECT USING ${READ};
-- An agent may record the space's embedder when none is (its first vector); everything else is a reviewer's.
CREATE POLICY members_claim_embedder ON meta FOR INSERT WITH CHECK (${READ} AND key IN ('embedder_id', 'embedder_dim'));
CREATE POLICY reviewers_insert ON meta FOR INSERT WITH CHECK ${REVIEW};
CREATE POLICY reviewers_update ON meta FOR UPDATE USING ${REVIEW} WITH CHECK ${REVIEW};
CREATE POLICY reviewers_delete ON meta FOR DELETE USING ${REVIEW};
ALTER TABLE space_members ENABLE ROW LEVEL SECURITY;

-- The roles that held rows before this migration keep what they could do, as reviewers of every space (single trust).
INSERT INTO space_members (space, role, level)
SELECT DISTINCT '*', grantee, 'reviewer' FROM information_schema.role_table_grants
WHERE table_schema = 'public' AND table_name = 'records' AND privilege_type = 'INSERT' AND grantee <> current_user AND grantee <> 'PUBLIC'
ON CONFLICT DO NOTHING;
`;

/** Tables an application role reads (each under row-level security but schema_migrations). */
const READ_TABLES = ['records', 'retrievals', 'tasks', 'audit', 'audit_archive', 'audit_chain_heads', 'change_log', 'meta', 'role_memories', 'term_stats', 'schema_migrations'];

/**
 * What an application role may do on the tables (the same for agents and reviewers: the
 * row-level security policies and the functions tell them apart, space by space). No DELETE,
 * no right on any sequence, no UPDATE of status, counters, space or ids.
 */
export function applicationGrants(role: string): string[] {
  return [
    `REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${role}`,
    `REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${role}`,
    `GRANT USAGE ON SCHEMA public TO ${role}`,
    `GRANT SELECT ON ${READ_TABLES.join(', ')} TO ${role}`,
    `GRANT INSERT ON records, audit, retrievals, tasks, meta, role_memories TO ${role}`,
    `GRANT UPDATE (stale, check_state, check_fingerprint, check_answer, check_error, checked_at, embedding, embedder_id, embedding_dim, status_before_delete, updated_at) ON records TO ${role}`,
    `GRANT UPDATE (log, finished_at, language, code, answer, outcome, record_id, evaluator, input_similarity, output_similarity) ON tasks TO ${role}`,
    `GRANT UPDATE, DELETE ON meta TO ${role}`,
    `GRANT UPDATE ON role_memories TO ${role}`,
  ];
}
