// Every suite `npm run bench` knows, in the order they run: the token suite last, since the garbage its
// servers leave (oidc-provider's in-memory store keeps every token) would slow the suites after it.
import type { Suite } from "../lib/types.ts";
import { appsSuite } from "./apps.ts";
import { meLayersSuite } from "./me-layers.ts";
import { meSuite } from "./me.ts";
import { routerSuite } from "./router.ts";
import { tokenSuite } from "./token.ts";

export const suites: Suite[] = [meSuite, meLayersSuite, appsSuite, routerSuite, tokenSuite];
