/** Query parameters whose values are hidden: anything that looks like a credential. */
export const SECRET_PARAM = /pass|secret|token|key|auth|cred|sig/i;

/**
 * A connection URL safe to print: the password (and any credential-like query parameter) replaced
 * by `***`, parsed with the URL parser so passwords holding `/`, `@` or `:` are caught too. A string
 * the parser cannot read keeps only its scheme and what follows its last `@`, its credential-like
 * query values hidden too.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    // A Redis Cluster URL's credentials may hold a raw `/`, `?` or `#` that the URL parser would
    // read as the start of a path, query or fragment: always cut it at its last `@`.
    if (/^rediss?\+cluster:/i.test(url)) throw new TypeError('a Redis Cluster URL');
    parsed = new URL(url);
  } catch {
    // Everything up to the last `@`: the password may hold `/`, `?`, `#` or `@` itself; and the
    // values of credential-like query parameters, as for a URL the parser reads.
    return url
      .replace(/^([^:/]*:\/\/).*@/, '$1***@')
      .replace(/([?&][^=&#]*)=([^&#]*)/g, (pair, name: string) =>
        SECRET_PARAM.test(name) ? `${name}=***` : pair,
      );
  }
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()])
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, '***');
  return parsed.toString().replace(/%2A%2A%2A/g, '***');
}
