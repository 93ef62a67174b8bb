/** Where a formed memory came from: the messages of one conversation a formation run read. */
export interface MemorySource {
  conversationId: string;
  /** The ids of the messages the memory rests on (at least one). */
  messageIds: string[];
  /** The formation run that wrote it. */
  runId: string;
}

/**
 * A memory formed from conversations: one version of it. An update never rewrites a memory's
 * text: it closes the old version (`validUntil`, `supersededBy`) and writes a new one (`supersedes`),
 * so the history of a memory is the chain of its versions.
 */
export interface FormedMemory {
  id: string;
  entityId: string;
  text: string;
  /** What it is (`fact`, `preference`, `event`, … as the app configures). */
  kind: string;
  sources: MemorySource[];
  /** When the statement it rests on was made (epoch ms). */
  observedAt: number;
  /** From when it holds, when the user said so ("I moved to Berlin last month"); epoch ms. */
  validFrom?: number;
  /** Until when it held: set when a later version superseded it or it was invalidated. */
  validUntil?: number;
  /** The version this one replaced. */
  supersedes?: string;
  /** The version that replaced this one. */
  supersededBy?: string;
  /** `edit` for a version a person wrote (a correction through the API or a tool); else formed. */
  origin?: 'edit';
  createdAt: number;
  updatedAt: number;
}

/** A memory the extraction step proposes, before it is consolidated with what the entity holds. */
export interface MemoryCandidate {
  text: string;
  kind: string;
  /** The ids of the new messages it rests on (at least one). */
  messageIds: string[];
  /** From when it holds, when the user said so (epoch ms). */
  validFrom?: number;
  /**
   * The user took something back ("forget that I like jazz", "that's no longer true"): the only
   * kind of candidate that may invalidate a memory.
   */
  retraction?: boolean;
}

/** What the model chose for one candidate, against the entity's nearest active memories. */
export type ConsolidationChoice =
  | { op: 'ADD' }
  /** The candidate replaces `target` (a correction or a change): a new version supersedes it. */
  | { op: 'UPDATE'; target: string }
  /** The candidate retracts `target`: it stops being active, and is kept. */
  | { op: 'INVALIDATE'; target: string }
  | { op: 'NONE' };

/** What one candidate became, after the rules. */
export interface AppliedOperation {
  /** The candidate's position in the job. */
  candidate: number;
  op: 'ADD' | 'UPDATE' | 'INVALIDATE' | 'NONE';
  /** The memory written (ADD, UPDATE: the new version) or matched (NONE on a duplicate). */
  memoryId?: string;
  /** The memory closed (UPDATE: the old version; INVALIDATE). */
  target?: string;
  /** Why the rules changed the model's choice, when they did. */
  overruled?: string;
}
