import {
  OperationNodeTransformer,
  sql,
  PostgresAdapter,
  type DataTypeNode,
  type Kysely,
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
 * A value written into the statement as a literal instead of bound, where it is one of `allowed` (else bound
 * as usual): for the columns a partial index's condition names (a request's or invite's `state`, a
 * notification's `seen`, a follow's `followable_type` and `secret_page`). SQLite reads a bound value to tell
 * whether such an index serves the query, and then prepares the statement again each time that parameter is
 * bound anew (a follows page: about 40 µs a run became 65). A few known constants make a few statements.
 */
export function fixed<T extends string | number>(value: T, allowed: readonly T[]): T | RawBuilder<T> {
  return allowed.includes(value) ? sql.lit(value) : value;
}

/** The dialect a Kysely instance (or a transaction of one, as a migration gets) speaks. */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * A migration's work in one transaction: SQLite runs its migrations outside any (a step half done would stay),
 * so there it is wrapped in its own; PostgreSQL's migrator already holds one. `work` is told the dialect.
 */
export async function inOneTransaction(db: Kysely<any>, work: (pg: boolean) => Promise<void>): Promise<void> {
  if (dialectOf(db) === 'postgres') return work(true);
  await sql`begin immediate`.execute(db);
  try {
    await work(false);
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => undefined);
    throw error;
  }
}

/**
 * Column types as SQLite has them, for PostgreSQL. The migrations are written once, with SQLite's types;
 * on PostgreSQL they run through this plugin, so that the same columns behave the same:
 *
 * - `varchar(N)` and `text` become `text COLLATE "C"`: SQLite does not enforce a varchar's length (the
 *   edge's schemas do) and compares text byte by byte (BINARY). "C" compares bytes too (UTF-8 byte order is
 *   code point order), so ordering, keyset cursors, ranges (`slug >= 'x-' and slug < 'x.'`) and `lower()`
 *   (ASCII only under "C", like SQLite's) answer the same whatever collation the database was created with.
 * - `integer` becomes `bigint`: SQLite's integers are 64-bit (the longest event in milliseconds does not fit
 *   in 32 bits). The store's pool reads int8 as a JavaScript number.
 */
export class SqliteTypesOnPostgres implements KyselyPlugin {
  private readonly transformer = new (class extends OperationNodeTransformer {
    protected override transformDataType(node: DataTypeNode): DataTypeNode {
      const type = node.dataType as string;
      if (type === 'text' || /^varchar(\(\d+\))?$/.test(type)) return { ...node, dataType: 'text collate "C"' as 'text' };
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
