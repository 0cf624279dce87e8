// The arguments and the cost of a paged list field (see services/pages.ts). The page size asked for is the
// list's cost multiplier, so asking for more items costs more (server/graphql/limits.ts).
import type { ArgBuilder } from "@pothos/core";
import { PAGE_SIZE } from "../services/pages.ts";
import type { builder } from "./builder.ts";

export { pageOf } from "../services/pages.ts";

/** What reading one page costs before its items: a database query. */
const PAGE_READ_COST = 10;

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

export function pageArgs(arg: ArgBuilder<Types>, itemId: string) {
  return {
    first: arg.int({ defaultValue: PAGE_SIZE.default, description: `How many items, 1 to ${PAGE_SIZE.max}` }),
    after: arg.string({ required: false, description: `The ${itemId} of the last item of the previous page` }),
  };
}

/** One read, then the selection once per item asked for (a size out of range, refused anyway, costs the maximum). */
export function pageCost(args: { first: number }) {
  const size = Number.isInteger(args.first) && args.first > 0 ? Math.min(args.first, PAGE_SIZE.max) : PAGE_SIZE.max;
  return { field: PAGE_READ_COST, multiplier: size };
}
