import { ErrorCode } from '../../shared/errors.js';
import { IdParams } from '../../shared/schemas/common.js';
import { createReport, dismissReport, getReport, listReports, resolveReport } from '../../domain/reports.js';
import { CreateReportInput, ListReportsQuery, ReportListSchema, ReportSchema, ResolveReportInput } from '../../shared/schemas/reports.js';
import type { RouteContext } from '../context.js';

export function registerReportRoutes({ routes, deps }: RouteContext): void {
  const tag = 'Moderation';
  routes.add(
    { method: 'POST', url: '/reports', operationId: 'create_report', conflicts: [ErrorCode.alreadyReported, ErrorCode.conflict], tag, summary: 'Report a status, a comment or a user you can see', body: CreateReportInput, response: ReportSchema },
    ({ body, caller }) => createReport(deps, caller, body),
  );
  routes.add(
    {
      method: 'GET',
      url: '/reports',
      operationId: 'list_reports',
      tag,
      summary: "Reports oldest first: Admins all, a page's administrators those on its content, anyone else their own",
      query: ListReportsQuery,
      response: ReportListSchema,
    },
    ({ query, caller }) => listReports(deps, caller, query),
  );
  routes.add(
    { method: 'GET', url: '/reports/:id', operationId: 'get_report', tag, summary: 'Get a report', params: IdParams, response: ReportSchema },
    ({ params, caller }) => getReport(deps, caller, params.id),
  );
  routes.add(
    {
      method: 'PUT',
      url: '/reports/:id/resolve',
      operationId: 'resolve_report',
      conflicts: [ErrorCode.conflict, ErrorCode.cannotSuspendSelf, ErrorCode.lastAdmin],
      tag,
      summary: 'Resolve a report and every open report on its target: remove the content, suspend the user (Admins), or none',
      params: IdParams,
      body: ResolveReportInput,
      response: ReportSchema,
    },
    ({ params, body, caller }) => resolveReport(deps, caller, params.id, body),
  );
  routes.add(
    { method: 'PUT', url: '/reports/:id/dismiss', operationId: 'dismiss_report', conflicts: [ErrorCode.conflict], tag, summary: 'Dismiss a report and every open report on its target', params: IdParams, response: ReportSchema },
    ({ params, caller }) => dismissReport(deps, caller, params.id),
  );
}
