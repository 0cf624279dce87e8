// The edge named by EDGE (config.edge), or none: the in-process router then serves the apps over HTTP.
import type { Config } from "../../config.ts";
import { createCaddyEdge } from "./caddy.ts";
import type { EdgeDriver, EdgeOptions } from "./types.ts";

export type { EdgeDriver, EdgeOptions } from "./types.ts";

export function createEdge(config: Config, options: EdgeOptions): EdgeDriver | null {
  if (!config.edge) return null;
  return createCaddyEdge(config.edge, options);
}
