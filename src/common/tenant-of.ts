/**
 * The tenant of an id as `AgentMemoryHttpModule` stores it (`tenant/id`): the text before its first
 * `/`, `''` for an id without one (the default tenant). What per-tenant quotas and bounds count by
 * unless the app says otherwise.
 */
export function tenantOfStoredId(id: string): string {
  const slash = id.indexOf('/');
  return slash < 0 ? '' : id.slice(0, slash);
}
