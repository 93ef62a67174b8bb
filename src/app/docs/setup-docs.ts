import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** Serves the OpenAPI document at `/docs-json` and Swagger UI at `/docs` (from local assets). */
export function setupDocs(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Agent memory')
    .setDescription(
      'Agent turns with durable conversation, long-term and working memory. Errors are `{ statusCode, error, message }`.',
    )
    .setVersion('0.1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'A key of API_KEYS' })
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
}
