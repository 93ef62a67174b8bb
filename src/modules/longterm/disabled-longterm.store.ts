import { LongtermMemoryDisabledError } from './errors/longterm.errors.js';
import type { LongtermMemoryStore } from './interfaces/longterm-store.interface.js';

/** The stand-in store when the tier is off: every method throws `LongtermMemoryDisabledError`. */
export class DisabledLongtermStore implements LongtermMemoryStore {
  async load(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async save(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async saveMany(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async delete(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async deleteEntity(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async search(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async searchText(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async searchVector(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async unembedded(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async setEmbeddings(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
  async sweepExpired(): Promise<never> {
    throw new LongtermMemoryDisabledError();
  }
}
