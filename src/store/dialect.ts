import {
  OperationNodeTransformer,
  sql,
  PostgresAdapter,
  type DataTypeNode,
  type QueryExecutorProvider,
  type RawBuilder,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/**
 * A value of `allowed` written as a literal, for columns a partial index's condition names: SQLite would re-prepare
 * the statement every run to judge such an index against a bound value.
 */
export function fixed<T extends string | number>(value: T, allowed: readonly T[]): T | RawBuilder<T> {
  return allowed.includes(value) ? sql.lit(value) : value;
}

/** The dialect a Kysely instance (or a transaction of one, as a migration gets) speaks. */
export function dialectOf(db: QueryExecutorProvider): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
export const onPostgres = (db: QueryExecutorProvider): boolean => dialectOf(db) === 'postgres';

/**
 * `run` inside a transaction that `begin` (its statement) opens on the connection `conn`: committed, or rolled back if
 * it throws. For what Kysely's `transaction()` cannot ask: SQLite's `begin immediate`, a repeatable-read snapshot.
 */
export async function inOwnTransaction<T>(conn: QueryExecutorProvider, begin: string, run: () => Promise<T>) {
  await sql.raw(begin).execute(conn);
  try {
    const value = await run();
    await sql`commit`.execute(conn);
    return value;
  } catch (error) {
    await sql`rollback`.execute(conn).catch(() => undefined);
    throw error;
  }
}

/**
 * SQLite's column types on PostgreSQL, so the migrations, written once, behave the same: text becomes
 * `text COLLATE "C"`, byte order like SQLite's (ordering, cursors, slug ranges and `lower()` answer the same whatever
 * the database's collation; varchar lengths are the edge's to enforce), and `integer` becomes `bigint` (64-bit).
 */
export class SqliteTypesOnPostgres implements KyselyPlugin {
  private readonly transformer = new (class extends OperationNodeTransformer {
    protected override transformDataType(node: DataTypeNode): DataTypeNode {
      const type = node.dataType as string;
      const text = type === 'text' || /^varchar(\(\d+\))?$/.test(type);
      if (text) return { ...node, dataType: 'text collate "C"' as 'text' };
      if (type === 'integer') return { ...node, dataType: 'bigint' };
      return node;
    }
  })();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
