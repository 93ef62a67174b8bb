import { newRev } from './run-record-fields.js';

describe('newRev', () => {
  it('answers 12 base64url characters, unique across several draws of the pool', () => {
    const revs = Array.from({ length: 2_000 }, () => newRev());
    for (const rev of revs) expect(rev).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(new Set(revs).size).toBe(revs.length);
  });
});
