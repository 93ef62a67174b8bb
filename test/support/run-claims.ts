import type { RunClaim } from '../../src/modules/agent/runs/run-claim.js';

/**
 * A claim of run `id` for `owner` at `at` as the agent makes it (owner, record, claim time and a
 * legacy record's `createdAt`), its ordered index and its one plain index named after the owner.
 */
export function claimOf(id: string, owner: string, at: number): RunClaim {
  return {
    runId: id,
    ownerKey: 'conversation',
    owner,
    readKey: 'status',
    atKey: 'claimedAt',
    at,
    atOfRead: 'createdAt',
    orderedIndex: `#o:${owner}`,
    indexes: [`#e:${owner}`],
  };
}
