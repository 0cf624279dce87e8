// Runs a mutation whose field answers a result union: the members named as successes come back as the value,
// every other member (an error result, which spreads ...ErrorFields) and any network or GraphQL error come
// back as a Problem. `failed` is the other half of the services' shape: a Problem, toasted when there is a notice.
import type { AnyVariables, TypedDocumentNode } from "@urql/core";
import { getFragmentData, type FragmentType } from "$lib/gql";
import { graphqlClient } from "$lib/graphql/client";
import { ErrorFields, problemFrom, type Problem } from "./errors";
import { toast } from "./toast.svelte";

export type Outcome<T = void> = { ok: true; value: T } | { ok: false; problem: Problem };

/** The Outcome of a success with nothing to answer. */
export const done: Outcome = { ok: true, value: undefined };

type Member = { __typename: string };
type Named<Answer, Name> = Extract<Answer, { __typename: Name }>;
/** The names of the fragments a member spreads that are ErrorFields (never when it spreads none). */
type ErrorFieldsRef<M> = Extract<M extends { " $fragmentRefs"?: infer Refs } ? keyof NonNullable<Refs> : never, `ErrorFields_${string}`>;
type NotSpreadingErrorFields<M> = M extends unknown ? ([ErrorFieldsRef<M>] extends [never] ? M : never) : never;
// Fails the call at compile time when a member not named as a success does not spread ...ErrorFields.
type ErrorsBesides<Answer, Name> = [NotSpreadingErrorFields<Exclude<NonNullable<Answer>, { __typename: Name }>>] extends [never]
  ? unknown
  : { error: "every member not named as a success must spread ...ErrorFields" };

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
  return { ok: false, problem: problemFrom(getFragmentData(ErrorFields, answer as FragmentType<typeof ErrorFields>)) };
}

/** A failed Outcome; with a notice, also an error toast ("<notice> <the problem's message>"). */
export function failed<T>(problem: Problem, notice?: string): Outcome<T> {
  if (notice) toast.error(`${notice} ${problem.message}`);
  return { ok: false, problem };
}
