import { describe, expect, it } from '@jest/globals';
import { UnsupportedDatabaseError } from '../../../common/errors/unsupported-database.error.js';
import { assertLongtermServer } from './mariadb-version.js';

describe('assertLongtermServer', () => {
  it.each([
    '10.5.0-MariaDB',
    '10.11.19-MariaDB-0+deb12u1',
    '11.4.2-MariaDB-log',
    '5.5.5-10.11.2-MariaDB',
  ])('accepts %s', (version) => expect(() => assertLongtermServer(version)).not.toThrow());

  it.each(['8.0.36', '8.4.0-commercial', '10.4.32-MariaDB', '5.5.5-10.3.39-MariaDB'])(
    'refuses %s, naming MariaDB ≥ 10.5',
    (version) => {
      expect(() => assertLongtermServer(version)).toThrow(UnsupportedDatabaseError);
      expect(() => assertLongtermServer(version)).toThrow(/MariaDB ≥ 10\.5/);
    },
  );
});
