import { useEffect, useState } from 'react';
import { getJson, seg } from './api.js';
import { reportFailure } from './errors.js';
import type { MemoryRecord } from './types.js';

const time = (epochMs: number) => new Date(epochMs).toLocaleString();

/**
 * An entity's long-term records (`GET /entities/:id/memories`), loaded when it opens and whenever
 * the entity changes; a key prefix narrows them (Search). "No records" when there are none.
 */
export function LongTermRecords({
  entityId,
  onEntityChange,
  onError,
}: {
  entityId: string;
  onEntityChange: (entityId: string) => void;
  onError: (message?: string) => void;
}) {
  const [prefix, setPrefix] = useState('');
  const [records, setRecords] = useState<MemoryRecord[]>();

  const search = (entity = entityId, keys = prefix) =>
    getJson<{ records: MemoryRecord[] }>(
      `/entities/${seg(entity)}/memories?prefix=${seg(keys)}&limit=100`,
    )
      .then((answer) => {
        setRecords(answer.records);
        onError(undefined);
      })
      .catch((failure: unknown) => {
        // Nothing shown rather than another entity's records, or "No records" for a bad id.
        setRecords(undefined);
        onError(reportFailure(failure));
      });

  // On open and on each change of the entity (after typing pauses), the records of that entity.
  useEffect(() => {
    if (!entityId.trim()) return;
    const timer = setTimeout(() => void search(entityId), 300);
    return () => clearTimeout(timer);
  }, [entityId]);

  return (
    <>
      <form
        className="fields"
        onSubmit={(event) => {
          event.preventDefault();
          void search();
        }}
      >
        <label>
          Entity
          <input
            data-testid="inspect-entity"
            value={entityId}
            onChange={(event) => onEntityChange(event.target.value)}
          />
        </label>
        <label>
          Key prefix
          <input
            data-testid="inspect-prefix"
            placeholder="e.g. profile/"
            value={prefix}
            onChange={(event) => setPrefix(event.target.value)}
          />
        </label>
        <button data-testid="search-records" type="submit">
          Search
        </button>
      </form>
      {records && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Long-term records">
          <table data-testid="records">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Value</th>
                <th scope="col">Seq</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {records.map((record) => (
                <tr key={record.key}>
                  <td>
                    <code>{record.key}</code>
                  </td>
                  <td>
                    <code>{JSON.stringify(record.value)}</code>
                  </td>
                  <td>{record.seq}</td>
                  <td>{time(record.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {records?.length === 0 && (
        <p className="empty" data-testid="no-records">
          No records: this entity holds no long-term records (what the app and its tools save by
          key). Formed memories are kept apart, below.
        </p>
      )}
    </>
  );
}
