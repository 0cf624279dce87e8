// The REST route table: each documented route runs one GraphQL operation of the same schema.
// `input` names the variable the JSON body becomes; the root field's value is the response body.
import type { RestRoute } from "./types.ts";
import { accountRoutes } from "./routes/account.ts";
import { adminRoutes } from "./routes/admin.ts";
import { oauthRoutes } from "./routes/oauth.ts";
import { appsRoutes } from "./routes/apps.ts";
import { dataRoutes } from "./routes/data.ts";
import { domainsRoutes } from "./routes/domains.ts";
import { runsRoutes } from "./routes/runs.ts";
import { processRoutes } from "./routes/processes.ts";
import { cronRoutes } from "./routes/cron.ts";
import { webhooksRoutes } from "./routes/webhooks.ts";
import { drainsRoutes } from "./routes/drains.ts";

// One file per domain under routes/; this order is the OpenAPI document's.
export const routes: RestRoute[] = [...accountRoutes, ...oauthRoutes, ...appsRoutes, ...processRoutes, ...runsRoutes, ...cronRoutes, ...dataRoutes, ...domainsRoutes, ...drainsRoutes, ...webhooksRoutes, ...adminRoutes];
