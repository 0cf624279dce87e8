// The admin console (role ADMIN and scope admin).
import type { RestRoute } from "../types.ts";

export const adminRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/api/admin/stats",
    tag: "admin",
    summary: "Platform-wide counts: users, apps by status, deployments, databases, CDN, OAuth, pending limit requests",
    document: `query AdminStats { adminStats {
      users { total active pending suspended }
      apps { total byStatus { CREATED DEPLOYING RUNNING CRASHED STOPPED FAILED SLEEPING } }
      deployments { total last24h failedLast24h }
      databases cdn { files bytes } oauth { clients activeTokens } quotaRequests { pending } } }`,
  },
  {
    method: "GET",
    path: "/api/admin/cluster",
    tag: "admin",
    summary: "The Slipway instances on this database, the leader (null: none holds a live lease) and its lease, the deployments' queue",
    document: `query Cluster { cluster {
      leader lease { expiresAt renewedAt }
      instances { id address runtime leader startedAt lastSeenAt }
      queue { pending running } } }`,
  },
  {
    method: "GET",
    path: "/api/admin/users",
    tag: "admin",
    summary: "Accounts with their quota, newest first, 40 at a time: `q` (part of email or name), `status`, `role`, `after` (last id)",
    document: `query AdminUsers($q: String, $status: UserStatus, $role: Role, $after: String) {
      adminUsers(q: $q, status: $status, role: $role, after: $after, first: 40) { ...UserFields quota { ...QuotaFields } } }`,
    variables: ({ query }) => ({ q: query.q || undefined, status: query.status || undefined, role: query.role || undefined, after: query.after || undefined }),
  },
  {
    method: "PATCH",
    path: "/api/admin/users/:id",
    tag: "admin",
    summary: "Change an account's role, status (SUSPENDED stops its sessions, tokens and apps) and/or quota",
    document: `mutation UpdateUser($id: ID!, $input: UpdateUserInput!) {
      updateUser(id: $id, input: $input) { ... on User { ...UserFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "GET",
    path: "/api/admin/approvals",
    tag: "admin",
    summary: "Accounts waiting for approval, oldest first, 100 at a time (`after`: last id)",
    document: `query Approvals($after: String) { approvals(after: $after, first: 100) { ...UserFields } }`,
    variables: ({ query }) => ({ after: query.after || undefined }),
  },
  {
    method: "POST",
    path: "/api/admin/approvals/:id",
    tag: "admin",
    summary: "Approve (ACTIVE) or reject (SUSPENDED) a pending account: `{decision: \"approve\"|\"reject\"}`",
    document: `mutation DecideApproval($id: ID!, $input: ApprovalInput!) {
      decideApproval(id: $id, input: $input) { ... on User { ...UserFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "GET",
    path: "/api/admin/quota-requests",
    tag: "admin",
    summary: "Limit requests with who asked, 40 at a time: `status`, `after` (last id)",
    document: `query AdminQuotaRequests($status: QuotaRequestStatus, $after: String) {
      adminQuotaRequests(status: $status, after: $after, first: 40) { ...QuotaRequestFields user { ...UserFields } } }`,
    variables: ({ query }) => ({ status: query.status || undefined, after: query.after || undefined }),
  },
  {
    method: "POST",
    path: "/api/admin/quota-requests/:id",
    tag: "admin",
    summary: "Approve a limit request (as asked, or with adjusted `limits`; the quota rises at once) or deny it with a `reason`",
    document: `mutation DecideQuotaRequest($id: ID!, $input: QuotaDecisionInput!) {
      decideQuotaRequest(id: $id, input: $input) { ... on QuotaRequest { ...QuotaRequestFields } ...ErrorFields } }`,
    input: "input",
  },
  {
    method: "GET",
    path: "/api/admin/audit",
    tag: "admin",
    summary: "The audit log, newest first, 100 at a time: `actor` (id or handle), `action` (or a prefix ending in a dot), `target` (id), `since`, `until`, `after` (last id)",
    document: `query AuditEvents($actor: String, $action: String, $target: String, $since: DateTime, $until: DateTime, $after: String) {
      auditEvents(actor: $actor, action: $action, target: $target, since: $since, until: $until, after: $after, first: 100) { ...AuditEventFields } }`,
    variables: ({ query }) => ({
      actor: query.actor || undefined,
      action: query.action || undefined,
      target: query.target || undefined,
      since: query.since || undefined,
      until: query.until || undefined,
      after: query.after || undefined,
    }),
  },
];
