import { fileURLToPath } from 'node:url';

/** Where `npm run build` puts the web page (`dist/web`), next to the compiled app. */
export const WEB_ROOT = fileURLToPath(new URL('../../web/', import.meta.url));
