import { BadRequestException, NotFoundException } from '@nestjs/common';

/**
 * What a conversation or entity id may be over HTTP: 1–200 characters of letters, digits and
 * `_ - . : @`. `/` is not among them: it separates a tenant from an id in storage, so no id a client
 * sends can name another tenant's data.
 */
export const HTTP_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,200}$/;

/** What a tenant id may be: 1–50 characters of the id set. */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,50}$/;

const SEPARATOR = '/';

/**
 * The ids of one tenant: turns an id of a request into the id stored (`tenant/id`; the id itself
 * for the default tenant) and back. Ids outside {@link HTTP_ID_PATTERN} are a 400, so the mapping is
 * one-to-one and a tenant reaches only its own conversations, entities and runs.
 */
export class TenantScope {
  constructor(readonly tenant: string | undefined) {
    if (tenant !== undefined && !TENANT_ID_PATTERN.test(tenant))
      throw new Error(
        'TenantResolver returned an invalid tenant id: 1–50 characters of letters, digits and _ - . : @',
      );
  }

  /** The stored id of a request's id (`what` names it in the 400). */
  scoped(id: string, what: string): string {
    if (!HTTP_ID_PATTERN.test(id))
      throw new BadRequestException(
        `${what} must be 1–200 characters of letters, digits and _ - . : @`,
      );
    return this.tenant === undefined ? id : `${this.tenant}${SEPARATOR}${id}`;
  }

  /** The request's id of a stored id of this tenant; `undefined` when it is another tenant's. */
  unscoped(storedId: string): string | undefined {
    if (this.tenant === undefined) return storedId.includes(SEPARATOR) ? undefined : storedId;
    const prefix = `${this.tenant}${SEPARATOR}`;
    return storedId.startsWith(prefix) ? storedId.slice(prefix.length) : undefined;
  }

  /** Like `unscoped`, for a resource that must be this tenant's: another tenant's is a 404. */
  owned(storedId: string, notFound: string): string {
    const id = this.unscoped(storedId);
    if (id === undefined) throw new NotFoundException(notFound);
    return id;
  }
}
