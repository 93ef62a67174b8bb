import { useEffect, useState } from 'react';
import { ApiError, getJson, seg } from './api.js';
import { reportFailure } from './errors.js';

/** An entity's profile as the API gives it (`GET /entities/:id/profile`). */
interface Profile {
  document: Record<string, unknown>;
  version: number;
  updatedAt: number;
  origin: 'formation' | 'edit';
  patch?: Record<string, unknown>;
}

const when = (epochMs: number) => new Date(epochMs).toLocaleString();

/**
 * The entity's profile (the agent's `formation.profile`): each member and its value, the version
 * and who made it, and on demand every version with the patch that made it. Nothing is shown when
 * the app has no profile configured; "none yet" when the entity has none.
 */
export function EntityProfile({
  entityId,
  reload,
  onError,
}: {
  entityId: string;
  /** Counts the loads of the memories: the profile is read after each (none before the first). */
  reload: number;
  onError: (message?: string) => void;
}) {
  const [profile, setProfile] = useState<Profile | null>();
  const [versions, setVersions] = useState<Profile[]>();

  useEffect(() => setVersions(undefined), [entityId]);
  useEffect(() => {
    if (reload === 0) return;
    // An answer for an entity the page has left since is dropped.
    let current = true;
    getJson<Profile>(`/entities/${seg(entityId)}/profile`)
      .then((answer) => current && setProfile(answer))
      .catch((failure: unknown) => {
        if (!current) return;
        // 404: none yet (null), or none configured (undefined: nothing to show).
        if (failure instanceof ApiError && failure.status === 404)
          setProfile(/no profile yet/.test(failure.message) ? null : undefined);
        else {
          setProfile(undefined);
          onError(reportFailure(failure));
        }
      });
    return () => {
      current = false;
    };
  }, [reload, entityId]);

  const showVersions = () =>
    getJson<{ versions: Profile[] }>(`/entities/${seg(entityId)}/profile/history?limit=100`)
      .then((answer) => setVersions(answer.versions))
      .catch((failure: unknown) => onError(reportFailure(failure)));

  if (profile === undefined) return null;
  return (
    <>
      <h4>Profile</h4>
      {profile === null ? (
        <p className="empty" data-testid="no-profile">
          No profile yet: say your name, where you live or work (“My name is Ada.”).
        </p>
      ) : (
        <>
          <dl className="profile" data-testid="profile">
            {/* In name order: stores keep a document's members in an order of their own. */}
            {Object.entries(profile.document)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([member, value]) => (
                <div key={member}>
                  <dt>{member}</dt>
                  <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
                </div>
              ))}
          </dl>
          <p className="meta" data-testid="profile-version">
            Version {profile.version}, {profile.origin === 'edit' ? 'edited' : 'formed'} on{' '}
            {when(profile.updatedAt)}{' '}
            <button
              type="button"
              data-testid="profile-history-open"
              onClick={() => void showVersions()}
            >
              Versions
            </button>
          </p>
          {versions && (
            <ol
              className="profile-versions"
              data-testid="profile-history"
              aria-label="Profile versions"
            >
              {versions.map((version) => (
                <li key={version.version}>
                  Version {version.version} ({version.origin}, {when(version.updatedAt)}):{' '}
                  <code>{JSON.stringify(version.patch)}</code>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </>
  );
}
