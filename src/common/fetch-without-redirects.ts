/**
 * `fetch` that never follows a redirect: it would carry the API key (`Authorization`,
 * `x-api-key`) to whatever origin the redirect names. A 3xx becomes an error that says so.
 */
export const fetchWithoutRedirects: typeof fetch = (input, init) =>
  fetch(input, { ...init, redirect: 'manual' });
