// The one GraphQL client: queries and mutations over HTTP, subscriptions over graphql-ws on the same
// /graphql path. The session cookie travels with both, but the WebSocket reads it only when it
// connects, so signing in or out replaces the client (and drops the previous user's cache).
import { Client, cacheExchange, fetchExchange, subscriptionExchange, type AnyVariables, type OperationResult, type TypedDocumentNode } from "@urql/core";
import { createClient as createWsClient, type Client as WsClient } from "graphql-ws";

let current: { client: Client; ws: WsClient } | null = null;

function webSocketUrl(): string {
  const url = new URL("/graphql", location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

function create() {
  // Lazy: the socket opens with the first subscription and closes a moment after the last one ends.
  const ws = createWsClient({ url: webSocketUrl(), lazy: true, retryAttempts: 5 });
  const client = new Client({
    url: "/graphql",
    fetchOptions: { credentials: "same-origin" },
    preferGetMethod: false,
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? "" };
          return {
            subscribe(sink) {
              const unsubscribe = ws.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
  return { client, ws };
}

export function graphqlClient(): Client {
  current ??= create();
  return current.client;
}

/** After sign-in and sign-out: the next request starts a fresh client with the new session. */
export function resetGraphqlClient(): void {
  current?.ws.dispose();
  current = null;
}

/** Runs a subscription until the returned function is called (what an $effect returns to clean up). */
export function watch<Data, Variables extends AnyVariables>(
  document: TypedDocumentNode<Data, Variables>,
  variables: Variables,
  onresult: (result: OperationResult<Data, Variables>) => void,
): () => void {
  const { unsubscribe } = graphqlClient().subscription(document, variables).subscribe(onresult);
  return unsubscribe;
}
