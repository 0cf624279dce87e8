// Puts each GraphQL document in the chunk of the code that uses it. The codegen client preset's `graphql()`
// looks documents up in one map of every document in the app, so the first page to call it (the sign-in
// page) would load them all, and the generated graphql.ts holds them all in one module too. This plugin
// rewrites each `graphql(`…`)` call into an import of a module of its own holding that one document (taken
// from graphql.ts), so the bundler puts each document with the pages that use it (what the preset's babel
// plugin does, without babel, one step further).
import fs from "node:fs";
import path from "node:path";
import type { Plugin } from "vite";

const DEFINITION = /\b(?:query|mutation|subscription|fragment)\s+([_A-Za-z][_0-9A-Za-z]*)/;
const CALL = /\bgraphql\(\s*`([^`]*)`\s*\)/g;

/** Operation or fragment name → the export of graphql.ts holding its document, read from gql.ts's map. */
function documentExports(gqlDir: string): Map<string, string> {
  const source = fs.readFileSync(path.join(gqlDir, "gql.ts"), "utf8");
  const start = source.indexOf("const documents");
  if (start < 0) throw new Error(`graphql-documents: no document map in ${gqlDir}/gql.ts (run npm run codegen)`);
  const exports = new Map<string, string>();
  const entry = /^\s*("(?:[^"\\]|\\.)*"): types\.(\w+),$/gm;
  entry.lastIndex = start;
  for (let match = entry.exec(source); match; match = entry.exec(source)) {
    const name = DEFINITION.exec(JSON.parse(match[1]) as string)?.[1];
    if (name) exports.set(name, match[2]);
  }
  return exports;
}

/** Export name → its document's JSON, one line each in graphql.ts. */
function documentSources(gqlDir: string): Map<string, string> {
  const source = fs.readFileSync(path.join(gqlDir, "graphql.ts"), "utf8");
  const documents = new Map<string, string>();
  for (const match of source.matchAll(/^export const (\w+) = (\{.*\}) as unknown as DocumentNode<.*;$/gm)) {
    documents.set(match[1], match[2]);
  }
  return documents;
}

const PREFIX = "virtual:graphql-document/";

export function graphqlDocuments(options: { gqlDir: string }): Plugin {
  let exports: Map<string, string> | undefined;
  let sources: Map<string, string> | undefined;
  return {
    name: "slipway-graphql-documents",
    enforce: "post",
    buildStart() {
      exports = undefined;
      sources = undefined;
    },
    resolveId(id) {
      return id.startsWith(PREFIX) ? "\0" + id : null;
    },
    load(id) {
      if (!id.startsWith("\0" + PREFIX)) return null;
      const name = id.slice(PREFIX.length + 1);
      // Under vite dev, codegen may have rewritten graphql.ts since: read it again.
      if (!sources || this.meta.watchMode) sources = documentSources(options.gqlDir);
      const document = sources.get(name);
      if (!document) this.error(`graphql-documents: graphql.ts exports no document ${name} (run npm run codegen)`);
      return `export default ${document};`;
    },
    transform(code, id) {
      const file = id.split("?")[0];
      if (file.includes("/node_modules/") || file.startsWith(path.resolve(options.gqlDir)) || !/\.(ts|js|svelte)$/.test(file)) return null;
      if (!code.includes("graphql(")) return null;
      exports ??= documentExports(options.gqlDir);
      const imports: string[] = [];
      const rewritten = code.replace(CALL, (call, body: string) => {
        const name = DEFINITION.exec(body)?.[1];
        // A document new since the map was read (vite dev while codegen runs again): read it once more.
        if (name && !exports!.has(name)) {
          exports = documentExports(options.gqlDir);
          sources = undefined;
        }
        const exported = name && exports!.get(name);
        if (!exported) this.error(`graphql-documents: no generated document for ${name ?? "a graphql() call"} in ${file} (run npm run codegen)`);
        const local = `__document_${exported}`;
        imports.push(`import ${local} from ${JSON.stringify(PREFIX + exported)};`);
        return local;
      });
      if (imports.length === 0) return null;
      return { code: [...new Set(imports)].join("\n") + "\n" + rewritten, map: null };
    },
  };
}
