import { z } from 'zod';
import { Id, listOf, PaginationQuery, queryText, Timestamp } from './common.js';
import { exampleApiKey } from './examples.js';

/** An API key pair as listed: never its secret (only its scrypt hash is stored). */
export const ApiKeySchema = z.object({
  id: Id,
  user_id: Id,
  api_key: z.string().describe('The public half of the pair, sent as the Api-Key header'),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable().describe('When the pair was last verified (to within five minutes); null if never'),
}).meta({ id: 'ApiKey', examples: [exampleApiKey] });
export type ApiKey = z.infer<typeof ApiKeySchema>;
export const ApiKeyListSchema = listOf(ApiKeySchema);
export const ListApiKeysQuery = PaginationQuery.extend({ user_id: queryText });
export type ListApiKeysQuery = z.infer<typeof ListApiKeysQuery>;
