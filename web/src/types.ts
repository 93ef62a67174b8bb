/** A part of a stored message's content. */
export interface StoredPart {
  type: 'text' | 'image' | 'file' | 'reasoning';
  text?: string;
  url?: string;
  data?: string;
  mediaType?: string;
  filename?: string;
}

/** A message as the API stores it. */
export interface StoredMessage {
  id: string;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | StoredPart[] | null;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
}

/** `GET /conversations/:id/messages`. */
export interface MessagesPage {
  conversationId: string;
  version: number;
  messages: StoredMessage[];
  before?: number;
}

/** A run's record. */
export interface RunRecord {
  runId: string;
  conversationId: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  createdAt: number;
  updatedAt: number;
  attempts?: number;
  error?: { name: string; message: string };
  result?: {
    version: number;
    toolCalls: Array<{
      id: string;
      name: string;
      arguments: string;
      result?: unknown;
      error?: string;
    }>;
    usage: { promptTokens: number; completionTokens: number };
    longterm: { flushed: number; refused: number };
  };
}

/** A long-term record. */
export interface MemoryRecord {
  entityId: string;
  key: string;
  value: unknown;
  seq: number;
  updatedAt: number;
  expiresAt?: number;
}

/** One working-memory entry. */
export interface WorkingMemoryEntry {
  key: string;
  value: unknown;
  sizeBytes: number;
}

/**
 * A conversation as `GET /conversations` lists it (`title`, `preview` and `metadata` when the
 * server has them); `lastActiveAt` is absent for one the server does not know yet.
 */
export interface ConversationSummary {
  conversationId: string;
  lastActiveAt?: number;
  title?: string | null;
  preview?: string | null;
  metadata?: Record<string, unknown>;
}

/** `GET /conversations`: the tenant's conversations, newest activity first. */
export interface ConversationsPage {
  conversations: ConversationSummary[];
  cursor?: string;
}

/** One step of a run (`GET /runs/:runId/steps`). */
export interface RunStep {
  type: 'model' | 'tool';
  scope: number;
  round: number;
  replayed: boolean;
  content?: string | null;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  usage?: { promptTokens: number; completionTokens: number };
  index?: number;
  call?: { id: string; name: string; arguments: string };
  result?: unknown;
  error?: string;
  staged?: Array<{ key: string; value: unknown }>;
}

/** `GET /runs/:runId/steps`. */
export interface RunSteps {
  runId: string;
  steps: RunStep[];
  longterm?: { entityId: string; seq: number; flushed: string[]; refused: string[] };
}

/** One version of a formed memory (`GET /entities/:id/formed-memories`). */
export interface FormedMemory {
  id: string;
  text: string;
  kind: string;
  sources: Array<{ conversationId: string; messageIds: string[]; runId: string }>;
  observedAt: number;
  validFrom?: number;
  validUntil?: number;
  supersedes?: string;
  supersededBy?: string;
  origin?: 'edit';
}

/** A formation job that spent its attempts (`GET /entities/:id/formation-failures`). */
export interface FailedFormation {
  jobId: string;
  conversationId: string;
  runId: string;
  error: string;
  attempts: number;
  at: number;
}

/** What running a failed formation job again did. */
export interface FormationRerun {
  status: 'written' | 'already-written' | 'failed' | 'not-rerunnable';
  operations?: Array<{ candidate: number; op: string; memoryId?: string }>;
  error?: string;
}

/** A written formation job (`GET /entities/:id/formation-jobs`). */
export interface FormationJob {
  jobId: string;
  conversationId: string;
  runId: string;
  model: string;
  operations: Array<{ candidate: number; op: string; memoryId?: string; overruled?: string }>;
  at: number;
  usage?: { promptTokens: number; completionTokens: number };
  profile?: { status: string; members: string[]; version?: number; reason?: string };
}
