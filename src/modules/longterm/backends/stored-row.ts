/** A live row as a backend returns it (value still canonical JSON text). */
export interface StoredRow {
  entityId: string;
  key: string;
  value: string;
  seq: number;
  updatedAt: number;
  expiresAt: number | null;
}

/** A live row a text search matched, with its backend's score. */
export interface ScoredRow extends StoredRow {
  score: number;
}
