import { expect } from '@jest/globals';

/**
 * LangGraph's checkpointer validation suite is written for Vitest and uses `expect.soft` in one
 * test. Jest has no soft assertions: here a soft assertion is a hard one (stricter, never looser).
 */
const globalExpect = (globalThis as { expect?: typeof expect & { soft?: typeof expect } }).expect;
if (globalExpect && !globalExpect.soft) globalExpect.soft = globalExpect;
if (!(expect as typeof expect & { soft?: typeof expect }).soft)
  (expect as typeof expect & { soft?: typeof expect }).soft = expect;
