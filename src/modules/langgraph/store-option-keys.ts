/** The keys of `AgentMemoryStoreOptions`. */
export const STORE_OPTION_KEYS = ['entityParts', 'entityId'] as const;
