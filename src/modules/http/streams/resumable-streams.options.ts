import type { RedisBackendOptions } from '../../connections/redis/redis-backend.options.js';

/**
 * Where `AgentMemoryHttpModule` keeps the streams of running chat turns, for readers that resume
 * them (`GET /conversations/:id/chat/stream`) and for Stop (`DELETE` there): in process memory
 * (`{ backend: 'memory' }`, the default: one instance), or on Redis, when a reload or a Stop may
 * reach another instance than the one running the turn.
 */
export type ResumableStreamsOptions = ({ backend: 'memory' } | RedisBackendOptions) & {
  /** Most bytes of chunks one turn's recording keeps (default 4 MiB); past it, no resume. */
  maxBytes?: number;
  /** How long an ended stream stays readable, in ms (default 60 000). */
  keepMs?: number;
};
