import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConnectionRegistry } from '../../connections/connection-registry.js';
import type { AgentMemoryHttpModuleOptions } from '../agent-memory-http.options.js';
import { AGENT_MEMORY_HTTP_OPTIONS } from '../http.constants.js';
import {
  type ChatStreamLimits,
  type ChatStreamRecording,
  type ChatStreams,
  DEFAULT_CHAT_STREAM_LIMITS,
  type StopOutcome,
} from './chat-streams.interface.js';
import { InProcessChatStreams } from './in-process.chat-streams.js';
import { RedisChatStreams } from './redis.chat-streams.js';

/**
 * The module's {@link ChatStreams}, on the backend of the `resumableStreams` option (process memory
 * by default), opened at start and closed at shutdown, after the turns in flight have ended.
 */
@Injectable()
export class ResumableChatStreams implements ChatStreams, OnModuleInit, OnApplicationShutdown {
  private streams?: ChatStreams;
  private release: () => Promise<void> = async () => undefined;

  constructor(
    @Inject(AGENT_MEMORY_HTTP_OPTIONS) private readonly options: AgentMemoryHttpModuleOptions,
    private readonly registry: ConnectionRegistry,
  ) {}

  async onModuleInit(): Promise<void> {
    const option = this.options.resumableStreams ?? { backend: 'memory' };
    const limits: ChatStreamLimits = {
      ...DEFAULT_CHAT_STREAM_LIMITS,
      ...(option.maxBytes !== undefined ? { maxBytes: option.maxBytes } : {}),
      ...(option.keepMs !== undefined ? { keepMs: option.keepMs } : {}),
    };
    if (option.backend === 'memory') {
      this.streams = new InProcessChatStreams(limits);
      return;
    }
    const lease = await this.registry.useRedis(option);
    this.release = lease.release;
    this.streams = new RedisChatStreams(lease.value, option.keyPrefix, limits);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.streams?.close();
    await this.release();
  }

  open(
    conversationKey: string,
    turn: { runId: string; userChunk: string },
  ): Promise<ChatStreamRecording> {
    return this.opened.open(conversationKey, turn);
  }

  read(
    conversationKey: string,
    seenVersion: number | undefined,
    signal: AbortSignal,
  ): Promise<AsyncIterable<string> | undefined> {
    return this.opened.read(conversationKey, seenVersion, signal);
  }

  stop(conversationKey: string): Promise<StopOutcome> {
    return this.opened.stop(conversationKey);
  }

  forget(conversationKey: string): Promise<void> {
    return this.opened.forget(conversationKey);
  }

  close(): Promise<void> {
    return this.opened.close();
  }

  private get opened(): ChatStreams {
    if (!this.streams) throw new Error('The chat streams are not open yet');
    return this.streams;
  }
}
