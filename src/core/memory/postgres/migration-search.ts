/**
 * Migration 7 of the team memory (migrations.ts): a search is one call of one owner function, one round trip.
 *
 * Until migration 6 a search made two statements (the query terms' document frequencies, then the search) and the
 * search called `agent_memory_keyword_candidates` once per keyword part (up to three), each checking the caller's
 * level; both statements read `records` or `term_stats` under row-level security, whose policies ask
 * `agent_memory_spaces` twice per table a statement reads, and both were planned at every search.
 * `agent_memory_search` does it all as the schema owner (not under the policies): the caller's level in the space is
 * checked once (`agent_memory_require`, read at every call, so a grant or a revoke applies to the next search), the
 * terms' frequencies are read, the keyword parts planned (`agent_memory_plan_keyword_search`, the rules of
 * docs/team-memory.md "Keyword search at 100k"), and the statement that returns both sides' candidates with their
 * records runs (`agent_memory_search_sql`: the same statement team-search.ts sent until migration 6, but every part
 * of the keyword side in it, no function call per part). Only the space's active, not stale, records come back.
 * `agent_memory_search_plan` shows that statement's plan (explainSearch, for tests and the design note).
 */

/**
 * A lexeme the keyword side ranks with: letters, digits and underscore (the server's parser also emits compound
 * tokens such as `icd-9`, `example.com` or `1.5`, which are left out, as their parts are terms of their own).
 * Written without locale classes for ASCII, so a database under the C locale (where `[[:alnum:]]` is ASCII only)
 * keeps its non-ASCII words.
 */
const PLAIN_TERM_SQL = "t <> '' AND t !~ '[!-/:-@\\[-^`{-~[:space:][:cntrl:]]'";

export const SEARCH_MIGRATION_SQL = `
-- The keyword parts for terms with their document frequencies among p_active records (pure). rare: OR of the rarest
-- terms whose postings together stay within p_cap (NULL when even the rarest one's do not); common (when rare is NULL):
-- AND of every term held by at most half of the records (of every term, when none is); fallback (when rare is NULL and
-- the AND has several terms): the rarest term alone; terms, idf: every present term (the 64 rarest) with its BM25 IDF;
-- all_terms: their OR (the ts_rank tie-break). All NULL when no term is present.
CREATE FUNCTION agent_memory_plan_keyword_search(p_terms text[], p_dfs float8[], p_active float8, p_cap integer,
  OUT rare tsquery, OUT common tsquery, OUT fallback tsquery, OUT terms tsquery[], OUT idf float8[], OUT all_terms tsquery)
LANGUAGE plpgsql IMMUTABLE SET search_path = public, pg_temp AS $$
DECLARE
  present text[]; dfs float8[]; n float8; total float8 := 0; picked text[] := '{}'; selective text[]; i integer;
  q CONSTANT text := '''';
BEGIN
  SELECT array_agg(x.t ORDER BY x.d, x.t COLLATE "C"), array_agg(x.d ORDER BY x.d, x.t COLLATE "C") INTO present, dfs
  FROM (SELECT t, d FROM unnest(p_terms, p_dfs) u(t, d) WHERE d > 0 AND ${PLAIN_TERM_SQL} ORDER BY d, t COLLATE "C" LIMIT 64) x;
  IF present IS NULL THEN RETURN; END IF;
  FOR i IN 1 .. array_length(present, 1) LOOP
    EXIT WHEN total + dfs[i] > p_cap;
    picked := picked || present[i];
    total := total + dfs[i];
  END LOOP;
  n := greatest(p_active, dfs[array_length(dfs, 1)]);
  -- In the AND, words in more than half of the records (near stop words, IDF < ln 2) only cost GIN work.
  selective := ARRAY(SELECT s.t FROM unnest(present, dfs) WITH ORDINALITY s(t, d, o) WHERE s.d <= n / 2 ORDER BY s.o);
  IF cardinality(selective) = 0 THEN selective := present; END IF;
  IF cardinality(picked) > 0 THEN
    rare := array_to_string(ARRAY(SELECT q || t || q FROM unnest(picked) t), ' | ')::tsquery;
  ELSE
    common := array_to_string(ARRAY(SELECT q || t || q FROM unnest(selective) t), ' & ')::tsquery;
    IF cardinality(selective) > 1 THEN fallback := (q || present[1] || q)::tsquery; END IF;
  END IF;
  terms := ARRAY(SELECT (q || t || q)::tsquery FROM unnest(present) t);
  idf := ARRAY(SELECT ln(1 + (n - d + 0.5) / (d + 0.5)) FROM unnest(dfs) d);
  all_terms := array_to_string(ARRAY(SELECT q || t || q FROM unnest(present) t), ' | ')::tsquery;
END $$;

-- The statement of a search: dense top-p_depth and keyword top-p_depth, UNION ALL, with their records. Parameters:
-- $1 space, $2 query vector, $3 rare, $4 common, $5 fallback, $6 terms, $7 idf, $8 all_terms. Neither side lets the
-- planner use the (space, status, …) btree, which it prefers without statistics (right after a bulk load) and which
-- then reads every row of the space: the keyword parts filter "space || ''", the dense side filters the space after
-- the HNSW scan (its p_hnsw nearest, as pgvector does anyway). Except where reading the space's rows is what is
-- wanted: the keyword parts of a small space (p_small), and the dense side of the crowded pass (p_in_scan).
CREATE FUNCTION agent_memory_search_sql(p_dim integer, p_rare boolean, p_common boolean, p_fallback boolean, p_small boolean,
  p_in_scan boolean, p_depth integer, p_hnsw integer, p_cap integer, p_common_cap integer) RETURNS text LANGUAGE plpgsql IMMUTABLE SET search_path = public, pg_temp AS $$
DECLARE
  parts text[] := '{}'; candidates text[] := '{}'; cast_ text; sim text := 'NULL::float8';
  space_filter text := CASE WHEN p_small THEN 'space = $1' ELSE 'space || '''' = $1' END;
BEGIN
  IF p_dim > 0 THEN
    cast_ := format('embedding::vector(%s)', p_dim);
    sim := format('CASE WHEN r.embedding_dim = %s THEN 1 - (r.%s <=> $2) END', p_dim, cast_);
    parts := parts || format('(SELECT ''d''::text AS side, rid, score, row_number() OVER (ORDER BY score DESC, rid) AS pos FROM (
        SELECT space, rid, 1 - (%1$s <=> $2) AS score FROM records
        WHERE status = ''active'' AND embedding_dim = %2$s%3$s ORDER BY %1$s <=> $2 LIMIT %4$s) n
      WHERE space = $1 ORDER BY score DESC, rid LIMIT %5$s)', cast_, p_dim, CASE WHEN p_in_scan THEN ' AND space = $1' ELSE '' END,
      CASE WHEN p_in_scan THEN p_depth ELSE p_hnsw END, p_depth);
  END IF;
  IF p_rare THEN candidates := candidates || format('(SELECT rid, tsv FROM records WHERE %s AND status = ''active'' AND tsv @@ $3 LIMIT %s)', space_filter, p_cap); END IF;
  IF p_common THEN candidates := candidates || format('(SELECT rid, tsv FROM records WHERE %s AND status = ''active'' AND tsv @@ $4 LIMIT %s)', space_filter, p_common_cap); END IF;
  IF p_fallback THEN candidates := candidates || format('(SELECT rid, tsv FROM records WHERE %s AND status = ''active'' AND tsv @@ $5 LIMIT %s)', space_filter, p_common_cap); END IF;
  IF cardinality(candidates) > 0 THEN
    parts := parts || format('(SELECT ''k''::text AS side, rid, score, row_number() OVER (ORDER BY score DESC, tie DESC, rid) AS pos FROM (
        SELECT c.rid, (SELECT coalesce(sum(w.idf), 0) FROM unnest($6, $7) w(q, idf) WHERE c.tsv @@ w.q) AS score, ts_rank(c.tsv, $8) AS tie
        FROM (SELECT DISTINCT ON (rid) rid, tsv FROM (%s) u) c) k
      ORDER BY score DESC, tie DESC, rid LIMIT %s)', array_to_string(candidates, ' UNION ALL '), p_depth);
  END IF;
  IF cardinality(parts) = 0 THEN RETURN NULL; END IF;
  RETURN format('SELECT s.side, s.score::float8, s.pos, %s AS sim, r FROM (%s) s JOIN records r ON r.rid = s.rid WHERE NOT r.stale',
    sim, array_to_string(parts, ' UNION ALL '));
END $$;

-- What a search of p_space runs (caller's rights: under row-level security for an application role). Its statements
-- are planned once per session (force_generic_plan: primary-key lookups whatever the terms; the planner otherwise
-- made a custom plan at every call).
CREATE FUNCTION agent_memory_search_prepare(p_space text, p_query text, p_dim integer, p_depth integer, p_hnsw integer, p_in_scan boolean, p_limits integer[],
  OUT sql text, OUT active float8, OUT rare tsquery, OUT common tsquery, OUT fallback tsquery, OUT terms tsquery[], OUT idf float8[], OUT all_terms tsquery)
LANGUAGE plpgsql STABLE SET search_path = public, pg_temp SET plan_cache_mode = force_generic_plan AS $$
DECLARE t text[]; d float8[]; plan record;
BEGIN
  SELECT array_agg(x.term), array_agg(coalesce(s.df, 0)::float8) INTO t, d
  FROM unnest(tsvector_to_array(to_tsvector('simple', p_query))) x(term) LEFT JOIN term_stats s ON s.space = p_space AND s.term = x.term;
  active := coalesce((SELECT s.df FROM term_stats s WHERE s.space = p_space AND s.term = ''), 0);
  plan := agent_memory_plan_keyword_search(coalesce(t, '{}'), coalesce(d, '{}'), active, p_limits[1]);
  rare := plan.rare; common := plan.common; fallback := plan.fallback; terms := plan.terms; idf := plan.idf; all_terms := plan.all_terms;
  sql := agent_memory_search_sql(p_dim, rare IS NOT NULL, common IS NOT NULL, fallback IS NOT NULL, active <= p_limits[3], p_in_scan, p_depth, p_hnsw, p_limits[1], p_limits[2]);
END $$;

-- A search (team-search.ts): p_limits are the keyword side's candidate cap, the cap of each common-words part and the
-- largest space whose keyword parts read its own rows (KEYWORD_CANDIDATES, COMMON_CANDIDATES, SMALL_SPACE_ROWS). First a row with side 'a' (score: the space's active records), then each side's candidates
-- (side 'd' or 'k', score, pos from 1, sim: the record's cosine to p_vector, rec: the record).
CREATE FUNCTION agent_memory_search(p_space text, p_query text, p_vector vector, p_dim integer, p_depth integer, p_hnsw integer, p_in_scan boolean, p_limits integer[])
RETURNS TABLE (side text, score float8, pos bigint, sim float8, rec records) LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE p record;
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  IF p_depth NOT BETWEEN 1 AND 10000 OR p_hnsw NOT BETWEEN 1 AND 10000 OR p_dim NOT BETWEEN 0 AND 16000 OR (p_dim > 0) <> (p_vector IS NOT NULL)
     OR cardinality(p_limits) <> 3 OR EXISTS (SELECT 1 FROM unnest(p_limits) l WHERE l IS NULL OR l NOT BETWEEN 1 AND 100000) THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'a search takes a depth and an HNSW candidate count within [1, 10000], a vector exactly when a dimension is given, and three limits within [1, 100000]';
  END IF;
  p := agent_memory_search_prepare(p_space, p_query, p_dim, p_depth, p_hnsw, p_in_scan, p_limits);
  side := 'a'; score := p.active; pos := 0; sim := NULL; rec := NULL;
  RETURN NEXT;
  IF p.sql IS NOT NULL THEN
    RETURN QUERY EXECUTE p.sql USING p_space, p_vector, p.rare, p.common, p.fallback, p.terms, p.idf, p.all_terms;
  END IF;
END $$;

-- Its plan (explainSearch): the statement agent_memory_search runs, for the space's members.
CREATE FUNCTION agent_memory_search_plan(p_space text, p_query text, p_vector vector, p_dim integer, p_depth integer, p_hnsw integer, p_in_scan boolean, p_limits integer[], p_analyze boolean)
RETURNS SETOF text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE p record;
BEGIN
  PERFORM agent_memory_require(p_space, 'agent');
  p := agent_memory_search_prepare(p_space, p_query, p_dim, p_depth, p_hnsw, p_in_scan, p_limits);
  IF p.sql IS NULL THEN RETURN; END IF;
  RETURN QUERY EXECUTE 'EXPLAIN (' || CASE WHEN p_analyze THEN 'ANALYZE, ' ELSE '' END || 'COSTS OFF) ' || p.sql
    USING p_space, p_vector, p.rare, p.common, p.fallback, p.terms, p.idf, p.all_terms;
END $$;

-- Replaced by agent_memory_search (a client at this version no longer calls them).
DROP FUNCTION agent_memory_keyword_plan(text, tsquery, integer, boolean, boolean);
DROP FUNCTION agent_memory_keyword_candidates(text, tsquery, integer, boolean);
DROP FUNCTION agent_memory_keyword_sql(boolean);
`;
