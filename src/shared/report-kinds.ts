/** The words of reports, without zod: the schemas check them, the CLI offers them before any request. */
export const REPORT_TARGET_TYPES = ['Status', 'Comment', 'User'] as const;
export const REPORT_REASONS = ['spam', 'abuse', 'off_topic', 'other'] as const;
export const REPORT_STATES = ['open', 'resolved', 'dismissed'] as const;
export const REPORT_ACTIONS = ['remove', 'suspend', 'none'] as const;
/** The resolution a report takes from each action. */
export const RESOLUTION_OF = { remove: 'removed', suspend: 'suspended', none: 'none' } as const;
/** The reason an act on reported content or its author keeps when the moderator gives none: the report's. */
export const reportedFor = (reason: string): string => `reported for ${reason.replace('_', ' ')}`;
