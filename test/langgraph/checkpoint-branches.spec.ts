import { afterAll, describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { ERROR, emptyCheckpoint, uuid6 } from '@langchain/langgraph-checkpoint';
import { Annotation, END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { randomUUID } from 'node:crypto';
import type { Lease } from '../../src/common/lease.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import type { AgentMemoryCheckpointSaver } from '../../src/modules/langgraph/agent-memory-checkpoint-saver.js';
import { openCheckpointSaverIn } from '../../src/modules/langgraph/open-checkpoint-saver.js';
import { longtermUris } from '../support/test-databases.js';

const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

/** What LangGraph's validation suite does not ask: branches of a thread, and repeated writes. */
describe.each(longtermUris('langgraph-branches.sqlite'))(
  'the checkpointer on %s',
  (_label, uri) => {
    let lease: Lease<AgentMemoryCheckpointSaver>;
    const saver = async () => {
      lease ??= await openCheckpointSaverIn(
        { uri: uri(), keyPrefix: `test:lg-branches:${randomUUID()}:` },
        registry,
      );
      return lease.value;
    };
    afterAll(() => lease?.release());

    it('keeps two forks from one older checkpoint apart', async () => {
      // A plain (last value) channel: each version's value is a blob of its own.
      const State = Annotation.Root({ note: Annotation<string>() });
      let turns = 0;
      const graph = new StateGraph(State)
        .addNode('answer', () => ({ note: `answer ${(turns += 1)}` }))
        .addEdge(START, 'answer')
        .addEdge('answer', END)
        .compile({ checkpointer: await saver() });
      const thread = { configurable: { thread_id: `fork-${randomUUID()}` } };
      await graph.invoke({ note: 'question 1' }, thread);
      const afterFirst = (await graph.getState(thread)).config;
      await graph.invoke({ note: 'question 2' }, thread);
      expect((await graph.getState(thread)).values.note).toBe('answer 2');
      // Edit the thread twice as it was after the first turn: two branches from one checkpoint,
      // whose channel versions both follow that checkpoint's.
      const forkA = await graph.updateState(afterFirst, { note: 'edit A' });
      const forkB = await graph.updateState(afterFirst, { note: 'edit B' });
      expect((await graph.getState(forkA)).values.note).toBe('edit A');
      expect((await graph.getState(forkB)).values.note).toBe('edit B');
      const second = (await graph.getStateHistory(thread).next()).value;
      expect(second?.values.note).toBe('edit B');
    });

    it('keeps the last of a special channel written twice in one putWrites', async () => {
      const checkpointer = await saver();
      const config = await checkpointer.put(
        { configurable: { thread_id: `writes-${randomUUID()}`, checkpoint_ns: '' } },
        { ...emptyCheckpoint(), id: uuid6(-1) },
        { source: 'loop', step: 0, parents: {} },
        {},
      );
      await checkpointer.putWrites(
        config,
        [
          [ERROR, 'first'],
          ['messages', 'kept'],
          [ERROR, 'last'],
        ],
        'task-1',
      );
      await checkpointer.putWrites(
        config,
        [
          [ERROR, 'later'],
          ['messages', 'ignored'],
        ],
        'task-1',
      );
      const tuple = await checkpointer.getTuple(config);
      expect(tuple?.pendingWrites).toEqual([
        ['task-1', ERROR, 'later'],
        ['task-1', 'messages', 'kept'],
      ]);
    });

    it('starts a deleted thread afresh when its id is used again', async () => {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('answer', () => ({ messages: [new AIMessage('pong')] }))
        .addEdge(START, 'answer')
        .addEdge('answer', END)
        .compile({ checkpointer: await saver() });
      const thread = { configurable: { thread_id: `again-${randomUUID()}` } };
      await graph.invoke({ messages: [new HumanMessage('old')] }, thread);
      await (await saver()).deleteThread(thread.configurable.thread_id);
      expect(await (await saver()).getTuple(thread)).toBeUndefined();
      await graph.invoke({ messages: [new HumanMessage('new')] }, thread);
      expect(
        (await graph.getState(thread)).values.messages.map((m: { content: unknown }) => m.content),
      ).toEqual(['new', 'pong']);
    });
  },
);
