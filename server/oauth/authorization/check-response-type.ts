// Authorization request, check 3: response_type. Rules:
// - it is required and must be `code`: the only response type issued (no implicit grant).
import { InvalidRequestError, UnsupportedResponseTypeError } from "../../errors.ts";
import { param } from "../params.ts";

export function checkResponseType(params: unknown): "code" {
  const responseType = param(params, "response_type");
  if (!responseType) throw new InvalidRequestError("Missing parameter: response_type (use \"code\").");
  if (responseType !== "code") throw new UnsupportedResponseTypeError(`response_type "${responseType}" is not supported; use "code".`);
  return responseType;
}
