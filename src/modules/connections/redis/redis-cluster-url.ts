import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';

/** The schemes of a Redis Cluster URL: plain and TLS. */
export const REDIS_CLUSTER_SCHEMES = ['redis+cluster:', 'rediss+cluster:'] as const;

/** The grammar of a Redis Cluster URL, for error messages and docs. */
export const REDIS_CLUSTER_URL_GRAMMAR =
  'redis+cluster://[user[:password]@]host[:port][,host[:port]…] (rediss+cluster:// for TLS)';

/** A Redis Cluster as its URL names it: seed nodes and what every node connection shares. */
export interface RedisClusterTarget {
  /** The seed nodes; the client discovers the rest of the cluster from any one of them. */
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
  tls: boolean;
}

/** Whether `url` names a Redis Cluster (`redis+cluster://…`, `rediss+cluster://…`, any case). */
export function isRedisClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:/i.test(url);
}

/**
 * Reads a Redis Cluster URL: `redis+cluster://[user[:password]@]host[:port][,host[:port]…]`, seed
 * nodes separated by commas like the hosts of a multi-host PostgreSQL or MongoDB URL. Each node is
 * read as its own `redis://` URL (IPv6 in brackets, percent-encoded credentials, port 6379 when
 * absent). A cluster has no databases, so a path other than `/` or a query is refused.
 */
export function parseRedisClusterUrl(url: string): RedisClusterTarget {
  const match = /^(rediss?)\+cluster:\/\/(?:(.*)@)?([^/?#@]*)(\/?)$/i.exec(url);
  const fail = (problem: string): never => {
    throw new InvalidArgumentError('url', `${problem}; write ${REDIS_CLUSTER_URL_GRAMMAR}`);
  };
  if (!match) return fail('is not a Redis Cluster URL (a path, query or fragment is not allowed)');
  const [, scheme, userinfo, hosts] = match as unknown as [
    string,
    string,
    string | undefined,
    string,
  ];
  if (hosts === '') return fail('names no node');
  // A comma before the `@` is a node list with credentials in the middle (`h1:7000,u:p@h2:7001`);
  // a comma in a password is written %2C.
  if (userinfo?.includes(','))
    return fail('has "," before its "@": credentials come first, and a "," in them is %2C');
  const nodes = hosts.split(',').map((node) => {
    let parsed: URL;
    try {
      parsed = new URL(`redis://${node}`);
    } catch {
      return fail(`has a node that is not host[:port] ("${node}")`);
    }
    if (!parsed.hostname || parsed.username || parsed.pathname !== '' || parsed.port === '0')
      return fail(`has a node that is not host[:port] ("${node}")`);
    if (parsed.hostname.includes('%')) return fail(`has a percent-encoded host ("${node}")`);
    return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsed.port || 6379) };
  });
  const credentials = userinfo === undefined ? {} : readUserinfo(userinfo, fail);
  return { nodes, ...credentials, tls: scheme.toLowerCase() === 'rediss' };
}

/** `user:password` of a URL, percent-decoded; an empty user name is left out. */
function readUserinfo(
  userinfo: string,
  fail: (problem: string) => never,
): { username?: string; password?: string } {
  const colon = userinfo.indexOf(':');
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return fail('has credentials that are not valid percent-encoding');
    }
  };
  const username = decode(colon < 0 ? userinfo : userinfo.slice(0, colon));
  const password = colon < 0 ? undefined : decode(userinfo.slice(colon + 1));
  return {
    ...(username ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
  };
}

/** Why `url` is not a valid Redis Cluster URL (the parser's message), or `undefined` if it is. */
export function redisClusterUrlProblem(url: string): string | undefined {
  try {
    parseRedisClusterUrl(url);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error.problem;
    throw error;
  }
}
