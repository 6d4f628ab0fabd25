import { withStableLimits } from '../../src/store/sqlite.js';
import { openRaw } from './store-target.js';

export interface Query {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * The steps of the queries' plans that read a whole table or sort rows, each with its query: none is
 * wanted, every list being an index walk in order. SQLite: `EXPLAIN QUERY PLAN`, a `SCAN` of a table or a
 * temporary B-tree. PostgreSQL: `EXPLAIN` with sequential scans priced out (`enable_seqscan = off`: on tables
 * this small it would rightly prefer them), a `Seq Scan` left means no index serves the query; and a `Sort`
 * means the order is not the index's (a union of walks is merged by `Merge Append`, which sorts nothing).
 */
export async function badPlans(target: string, queries: Query[]): Promise<string[]> {
  const raw = await openRaw(target, { readonly: true });
  const bad: string[] = [];
  try {
    if (!target.startsWith('postgres')) {
      for (const { sql, parameters } of queries) {
        // As the store prepares it (its bound limits written as expressions).
        const plan = await raw.all<{ detail: string }>(`explain query plan ${withStableLimits(sql)}`, [...parameters]);
        for (const { detail } of plan)
          // (`SCAN w0`: the rows of one walk of a union, at most a page of them, read back from its subquery;
          // `SCAN walks`: the union's rows, at most a page a walk, read back to carry the total once; `SCAN w`: a
          // page's rows, read back to join the records they embed.)
          if ((/^SCAN \w+( AS \w+)?$/.test(detail) && !/^SCAN (w\d*|walks)$/.test(detail)) || /USE TEMP B-TREE/.test(detail)) bad.push(`${detail}\n  in ${sql}`);
      }
      return bad;
    }
    await raw.exec('set enable_seqscan = off; set enable_sort = off; set enable_incremental_sort = off');
    for (const { sql, parameters } of queries) {
      const [row] = await raw.all<{ 'QUERY PLAN': PlanNode[] }>(`explain (format json) ${sql.replace(/\$(\d+)/g, '?')}`, [...parameters]);
      for (const node of nodes(row!['QUERY PLAN'][0]!.Plan)) {
        // The skip over a union of walks sorts the first keys of each walk, each walk a bounded index range.
        if (node['Node Type'] === 'Sort' && boundedUnion(node)) continue;
        if (node['Node Type'] === 'Seq Scan' || node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort')
          bad.push(`${node['Node Type']}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}\n  in ${sql}`);
      }
    }
    return bad;
  } finally {
    await raw.close();
  }
}

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)`. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Filter?: string;
  Plans?: PlanNode[];
  Plan: PlanNode;
}

/** The node and every node under it. */
export function nodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodes)];
}

/** A sort of the union of walks each cut short by a Limit over an index scan: bounded by the skip, not the list. */
function boundedUnion(sort: PlanNode): boolean {
  const below = nodes(sort).slice(1);
  const limits = below.filter((n) => n['Node Type'] === 'Limit');
  return (
    below.some((n) => n['Node Type'] === 'Append') &&
    limits.length >= 2 &&
    limits.every((limit) => nodes(limit).slice(1).every((n) => n['Node Type'] !== 'Sort' && n['Node Type'] !== 'Seq Scan'))
  );
}
