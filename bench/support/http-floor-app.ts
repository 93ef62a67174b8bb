/**
 * The HTTP benchmark's floor: a bare Nest app on the same platform as the app it is compared with,
 * routes of the same shapes (path parameters, query, JSON body parsed) answering the same JSON bytes
 * the app answered, and nothing else: no guards, pipes, interceptors, middleware or store.
 */
import 'reflect-metadata';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Module,
  Param,
  Post,
  Put,
  Query,
  type INestApplication,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** What the floor answers on each route: the bodies captured from the app. */
export const floorReplies = {
  messages: {} as unknown,
  memories: {} as unknown,
  turn: {} as unknown,
};

@Controller()
class FloorController {
  @Get('conversations/:conversationId/messages')
  messages(@Param('conversationId') _id: string, @Query() _query: unknown): unknown {
    return floorReplies.messages;
  }

  @Put('conversations/:conversationId/working-memory/:key')
  @HttpCode(204)
  workingMemory(@Param('key') _key: string, @Body() _body: unknown): void {}

  @Get('entities/:entityId/memories')
  memories(@Param('entityId') _id: string, @Query() _query: unknown): unknown {
    return floorReplies.memories;
  }

  @Post('conversations/:conversationId/turns')
  turn(@Param('conversationId') _id: string, @Body() _body: unknown): unknown {
    return floorReplies.turn;
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

/** Which Nest platform an app runs on. */
export type HttpPlatform = 'express' | 'fastify';

/** Starts the floor on loopback and returns it with its URL. */
export async function startFloorApp(
  platform: HttpPlatform,
): Promise<{ app: INestApplication; url: string }> {
  const adapter =
    platform === 'fastify'
      ? new (await import('@nestjs/platform-fastify')).FastifyAdapter()
      : new (await import('@nestjs/platform-express')).ExpressAdapter();
  const app = await NestFactory.create(FloorModule, adapter, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url };
}
