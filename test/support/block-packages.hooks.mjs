// Module resolution hooks that make some packages look uninstalled (BLOCKED_PACKAGES, comma-separated),
// to check that the library loads its optional drivers lazily.
const blocked = new Set((process.env.BLOCKED_PACKAGES ?? '').split(',').filter(Boolean));

export async function resolve(specifier, context, nextResolve) {
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : specifier.split('/')[0];
  if (blocked.has(name)) {
    const error = new Error(`Cannot find package '${name}' imported from ${context.parentURL}`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, context);
}
