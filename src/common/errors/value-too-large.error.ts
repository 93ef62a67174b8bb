import { InvalidArgumentError } from './invalid-argument.error.js';

/**
 * A value to store is larger than the module allows for one write (`maxValueBytes`). Thrown before
 * any I/O, so nothing was written. The HTTP edge maps it to 413.
 */
export class ValueTooLargeError extends InvalidArgumentError {
  constructor(
    argument: string,
    /** The value's size, in UTF-8 bytes of its JSON. */
    readonly sizeBytes: number,
    /** The most one write may store. */
    readonly maxBytes: number,
  ) {
    super(argument, `is ${sizeBytes} bytes of JSON, over the limit of ${maxBytes} per write`);
  }
}
