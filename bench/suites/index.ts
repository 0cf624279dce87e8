// Every suite `npm run bench` knows, in the order they run. Add a suite by writing suites/<name>.ts and
// listing it here.
import type { Suite } from "../lib/types.ts";
import { meLayersSuite } from "./me-layers.ts";
import { meSuite } from "./me.ts";
import { tokenSuite } from "./token.ts";

export const suites: Suite[] = [meSuite, tokenSuite, meLayersSuite];
