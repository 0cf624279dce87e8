// Authorization request, check 4: state. Rules:
// - optional (RFC 6749 §4.1.1 recommends it); when sent it is echoed unchanged on every redirect;
// - it must be printable ASCII (RFC 6749 Appendix A.5, VSCHAR), of at most 2000 characters (params.ts).
import { InvalidRequestError } from "../../errors.ts";
import { param } from "../params.ts";

export function checkState(params: unknown): string | undefined {
  const state = param(params, "state");
  if (state !== undefined && !/^[\x20-\x7e]+$/.test(state)) {
    throw new InvalidRequestError("The state parameter must be printable ASCII of at most 2000 characters.");
  }
  return state;
}
