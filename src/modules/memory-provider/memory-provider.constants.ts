/** Injection token of the default (unnamed) memory provider. */
export const MEMORY_PROVIDER = 'AgentMemory:MemoryProvider';

/** The injection token of a memory provider: {@link MEMORY_PROVIDER}, or one per `name`. */
export function getMemoryProviderToken(name?: string): string {
  return name ? `${MEMORY_PROVIDER}:${name}` : MEMORY_PROVIDER;
}
