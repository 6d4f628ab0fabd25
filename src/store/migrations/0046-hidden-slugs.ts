import { sql, type Kysely, type Migration } from 'kysely';

/** A name's slug as agora made it on this day (a copy of `slugify`: a migration never imports live code). */
function slugOf(name: string, fallback: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/(\p{Script=Latin})[\u0300-\u036f]+/gu, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return Array.from(words).slice(0, 60).join('').replace(/-+$/, '') || fallback;
}

/**
 * Secret pages, and events in them, made before secret slugs took a part of their id (`night-shift-h1f0c9a2e`) kept
 * the plain slug of their name, so whoever made a page or an event of the same name still learnt from the number on
 * theirs that a hidden one exists. They get the slug a new one gets: the slug of their name, then `-h` and the last
 * eight characters of their id (unique as the id is). Their ids keep working; links by the old slug find
 * nothing, as for anyone outside, and the notifications that named them by it name the new one. May run again: a slug
 * already so made is left alone.
 */
export const hiddenSlugs: Migration = {
  async up(db: Kysely<any>) {
    type Hidden = { id: string; name: string; slug: string };
    const hidden = async (table: 'pages' | 'events', fallback: string, rows: Hidden[]) => {
      for (const { id, name, slug } of rows) {
        const part = `-h${id.slice(-8)}`;
        if (slug.endsWith(part)) continue;
        await sql`update ${sql.table(table)} set slug = ${`${slugOf(name, fallback)}${part}`} where id = ${id}`.execute(db);
      }
    };
    const pages = await sql<Hidden>`select id, name, slug from pages where privacy = 'secret'`.execute(db);
    await hidden('pages', 'page', pages.rows);
    const events = await sql<Hidden>`select e.id, e.name, e.slug from events e join pages p on p.id = e.page_id where p.privacy = 'secret'`.execute(db);
    await hidden('events', 'event', events.rows);
    // What was told of them (a follow of the page, a yes to the event) names them by slug too: left as it was, a
    // notification would name by it a page or event of the same name made since.
    const secretPages = sql`select id from pages where privacy = 'secret'`;
    const secretEvents = sql`select e.id from events e join pages p on p.id = e.page_id where p.privacy = 'secret'`;
    for (const [type, table, ids] of [['Page', 'pages', secretPages], ['Event', 'events', secretEvents]] as const)
      for (const column of ['target', 'final_target', 'link']) {
        const [slug, id, typed] = [sql.ref(`${column}_slug`), sql.ref(`notification_contents.${column}_id`), sql.ref(`${column}_type`)];
        await sql`update notification_contents set ${slug} = (select h.slug from ${sql.table(table)} h where h.id = ${id}) where ${typed} = ${type} and ${id} in (${ids})`.execute(db);
      }
  },
};
