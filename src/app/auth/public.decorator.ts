import { SetMetadata } from '@nestjs/common';

/** Metadata key of {@link Public}. */
export const IS_PUBLIC = 'app:isPublic';

/** Marks a route that needs no API key (`/health`). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
