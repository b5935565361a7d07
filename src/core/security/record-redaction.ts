import type { NewRecord } from '../memory/types';
import { RedactionTally } from './redact';

/**
 * Redacts every free-text field of a record about to be stored: question, code,
 * answer, output excerpt and metadata (ids, status, numbers are not text a
 * secret can hide in). Counts go to `tally`.
 *
 * @example
 * const tally = new RedactionTally();
 * const clean = redactNewRecord(record, tally); // tally.count secrets replaced
 */
export function redactNewRecord(rec: NewRecord, tally: RedactionTally): NewRecord {
  const x = rec.execution;
  return {
    ...rec,
    question: tally.text(rec.question),
    execution: { ...x, code: tally.text(x.code), answer: tally.json(x.answer), outputExcerpt: tally.text(x.outputExcerpt) },
    metadata: tally.json(rec.metadata),
  };
}

/** Redacts a batch in place (one tally per record, also added to `total`); returns the per-record tallies. */
export function redactNewRecords(records: NewRecord[], total?: RedactionTally): RedactionTally[] {
  return records.map((rec, i) => {
    const tally = new RedactionTally();
    records[i] = redactNewRecord(rec, tally);
    total?.add(tally);
    return tally;
  });
}
