/**
 * What one execution of a run last knew of its record: the status entry's JSON as it last read or
 * wrote it (`null`: there was none; absent: not known), and when the run was claimed. A record
 * write given it compares against it instead of reading the record first (a round trip less per
 * write); if another writer changed the record meanwhile (a lease renewal, a takeover), the
 * compare-and-set fails and the write reads and tries again, as any compare-and-set that lost. A
 * decision that writes nothing (a transition that does not apply) is only ever taken on a fresh
 * read. The writes keep it current.
 */
export interface RunSnapshot {
  json?: string | null;
  claimedAt?: number;
  /**
   * The claim stored the run's first record (`running`, its first attempt, held by the claimer):
   * the attempt has started, and nothing was recorded for the run before it.
   */
  firstAttempt?: boolean;
}
