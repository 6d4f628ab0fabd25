import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHeaderRow } from '../../src/cli/header-row.js';
import * as api_keysSchemas from '../../src/shared/schemas/api-keys.js';
import * as auditSchemas from '../../src/shared/schemas/audit.js';
import * as contentSchemas from '../../src/shared/schemas/content.js';
import * as eventsSchemas from '../../src/shared/schemas/events.js';
import * as followsSchemas from '../../src/shared/schemas/follows.js';
import * as membershipSchemas from '../../src/shared/schemas/membership.js';
import * as moderationSchemas from '../../src/shared/schemas/moderation.js';
import * as notificationsSchemas from '../../src/shared/schemas/notifications.js';
import * as pagesSchemas from '../../src/shared/schemas/pages.js';
import * as removalsSchemas from '../../src/shared/schemas/removals.js';
import * as reportsSchemas from '../../src/shared/schemas/reports.js';
import * as rolesSchemas from '../../src/shared/schemas/roles.js';
import * as usersSchemas from '../../src/shared/schemas/users.js';
import * as webhooksSchemas from '../../src/shared/schemas/webhooks.js';

/** `-` skips a first line of our lists' field names (`list --fields nickname,id --header`), and only such a line. */
const COMMANDS = join(__dirname, '../../src/cli/commands');
const SCHEMAS: Record<string, unknown>[] = [api_keysSchemas, auditSchemas, contentSchemas, eventsSchemas, followsSchemas, membershipSchemas, moderationSchemas, notificationsSchemas, pagesSchemas, removalsSchemas, reportsSchemas, rolesSchemas, usersSchemas, webhooksSchemas];

describe('a header row piped in', () => {
  it("knows every list's column headers and every listed record's fields", () => {
    const headers = readdirSync(COMMANDS).flatMap((file) =>
      // The lists' columns (a live feed's, which never prints a header, aside).
      [...readFileSync(join(COMMANDS, file), 'utf8').matchAll(/^(?:export )?const (\w+): Column<[^>]+>\[\] = \[(.*?)^\];/gms)]
        .filter((m) => m[1] !== 'WATCH_COLUMNS')
        .flatMap((m) => [...m[2]!.matchAll(/header: '([^']+)'/g)].map((h) => h[1]!)),
    );
    expect(headers.length).toBeGreaterThan(50);
    const fields: string[] = [];
    for (const schemas of SCHEMAS) {
      for (const [exported, schema] of Object.entries(schemas)) {
        if (!/(List|Log|Queue)Schema$/.test(exported)) continue;
        const s = schema as { shape?: { items?: { element?: unknown } }; element?: unknown };
        const item = (s.shape?.items?.element ?? s.element) as { shape?: object; options?: { shape: object }[] } | undefined;
        for (const shape of item?.options?.map((o) => o.shape) ?? [item?.shape]) fields.push(...Object.keys(shape ?? {}));
      }
    }
    expect(fields).toContain('first_name');
    expect([...headers, ...fields].filter((word) => !isHeaderRow(word))).toEqual([]);
  });

  it('is a line of them only, tab-separated as our tables print it', () => {
    expect(isHeaderRow('nickname\tid')).toBe(true);
    expect(isHeaderRow('waiting since\tkind')).toBe(true);
    expect(isHeaderRow('bob\tid')).toBe(false);
    expect(isHeaderRow('nickname id')).toBe(false);
    expect(isHeaderRow('01a2195906c155723a68f3b3d42130f8')).toBe(false);
    expect(isHeaderRow('')).toBe(false);
  });
});
