// Runs a mutation whose field answers a result union: the members named as successes come back as the value,
// every other member (an error result) and any network or GraphQL error come back as a Problem.
import type { AnyVariables, TypedDocumentNode } from "@urql/core";
import { graphqlClient } from "$lib/graphql/client";
import { problemFrom, type ErrorResult, type Problem } from "./errors";

export type Outcome<T = void> = { ok: true; value: T } | { ok: false; problem: Problem };

/** A member of a result union; error members also carry what problemFrom reads. */
type Member = { __typename: string } & Partial<ErrorResult>;
type Named<Answer, Name> = Extract<Answer, { __typename: Name }>;
// Fails the call at compile time when a member not named as a success does not select code and message.
type ErrorsBesides<Answer, Name> = [Exclude<NonNullable<Answer>, { __typename: Name }>] extends [ErrorResult]
  ? unknown
  : { error: "every member not named as a success must select code and message" };

/** `mutate(Doc, variables, "field", ["SuccessType"])`: the success member, typed and narrowed, or a Problem. */
export async function mutate<
  Field extends string,
  Data extends Record<Field, Member | null | undefined>,
  Variables extends AnyVariables,
  Name extends NonNullable<Data[Field]>["__typename"],
>(
  document: TypedDocumentNode<Data, Variables>,
  variables: Variables,
  field: Field,
  successes: readonly Name[] & ErrorsBesides<Data[Field], Name>,
): Promise<Outcome<Named<Data[Field], Name>>> {
  const result = await graphqlClient().mutation(document, variables).toPromise();
  const answer = result.data?.[field];
  if (!answer) return { ok: false, problem: problemFrom(result.error) };
  if ((successes as readonly string[]).includes(answer.__typename)) return { ok: true, value: answer as Named<Data[Field], Name> };
  return { ok: false, problem: problemFrom(answer as ErrorResult) };
}
