import { registerAs } from '@nestjs/config';
import { type Env, readInteger, readString } from './env.js';

/** HTTP settings of the example app. */
export interface AppConfig {
  /** `PORT` (3000). */
  port: number;
  /**
   * `HOST` (`127.0.0.1`): the interface to listen on. Loopback by default, so a laptop never serves
   * the open (auth-less) demo to its network; containers set `0.0.0.0` on their own network.
   */
  host: string;
}

/** Reads and validates the app's HTTP settings. */
export function loadAppConfig(env: Env = process.env): AppConfig {
  return {
    port: readInteger(env, 'PORT', 3000, 0, 65_535),
    host: readString(env, 'HOST') ?? '127.0.0.1',
  };
}

/** The `app` config namespace. */
export const appConfig = registerAs('app', () => loadAppConfig());
