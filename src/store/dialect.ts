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
 * A value written into the statement as a literal where it is one of `allowed` (else bound), for the columns a
 * partial index's condition names: SQLite would re-prepare a statement on every run to judge such an index
 * against a bound value. A few known constants make a few statements.
 */
export function fixed<T extends string | number>(value: T, allowed: readonly T[]): T | RawBuilder<T> {
  return allowed.includes(value) ? sql.lit(value) : value;
}

/** The dialect a Kysely instance (or a transaction of one, as a migration gets) speaks. */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
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
