import { SetMetadata } from '@nestjs/common';

/** Metadata key marking the routes that call the model (and so cost money). */
export const CALLS_MODEL = 'agent-memory:calls-model';

/**
 * Marks a route that calls the model: the module's turn, chat and queued-turn routes carry it, so an
 * app can give them a budget of their own (the example app's `RATE_LIMIT_TURNS_MAX`), e.g. with
 * `reflector.get(CALLS_MODEL, context.getHandler())` in a throttler's `skipIf`.
 */
export const CallsModel = (): MethodDecorator => SetMetadata(CALLS_MODEL, true);
