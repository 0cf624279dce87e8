// Imports every domain so its types and root fields register on the builder, then builds the schema.
import { builder } from "../builder.ts";
import "./errors.ts";
import "./user.ts";
import "./session.ts";
import "./account.ts";
import "./account-links.ts";
import "./oauth.ts";
import "./apps.ts";
import "./health-checks.ts";
import "./deployments.ts";
import "./env.ts";
import "./domains.ts";
import "./logs.ts";
import "./processes.ts";
import "./runs.ts";
import "./cron.ts";
import "./metrics.ts";
import "./quota-requests.ts";
import "./admin.ts";
import "./audit.ts";
import "./resources.ts";
import "./cdn.ts";
import "./webhooks.ts";
import "./drains.ts";

export const schema = builder.toSchema();
