// PostgreSQL databases on the server of POSTGRES_PROVISION_URL (a role allowed to CREATE DATABASE and ROLE).
// Each database gets a login role of its own, named like it from the generated id (slipway_<id>), with a random
// password; the role owns its database and nothing else, and CONNECT is revoked from PUBLIC, so no other app's
// role can connect to it. Drop terminates the connections, then drops the database and the role.
// Backups: pg_dump --format=custom and pg_restore --clean --if-exists, run as the database's own role (argv
// arrays; the password in PGPASSWORD, never on a command line).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { checkedId, type DatabaseProvisioner, type DatabaseRef } from "./types.ts";

export interface PostgresOptions {
  /** POSTGRES_PROVISION_URL. */
  url: string;
  /** Where apps reach the server (the runtime may forward it to a service address). */
  appEndpoint(server: { host: string; port: number }): { host: string; port: number };
  /** Where the platform itself reaches the server (its IPv4 address, as resolved for the runtime). */
  server: { host: string; port: number };
}

const TOOL_TIMEOUT_MS = 30 * 60_000;

export function createPostgresProvisioner(options: PostgresOptions): DatabaseProvisioner {
  const admin = new pg.Pool({ connectionString: options.url, max: 2, idleTimeoutMillis: 10_000 });
  admin.on("error", () => {}); // an idle connection dropped by the server: the next query opens another
  const nameOf = (ref: DatabaseRef) => `slipway_${checkedId(ref.id)}`;
  const ident = (name: string) => pg.escapeIdentifier(name);

  const terminate = (name: string) => admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);

  async function dropAll(name: string): Promise<void> {
    await terminate(name);
    await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${ident(name)}`);
  }

  /** The database's own credentials, from the URL the app was given. */
  function credentials(url: string) {
    const parsed = new URL(url);
    return { user: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password), database: parsed.pathname.slice(1) };
  }

  function tool(argv: string[], url: string): Promise<void> {
    const { password } = credentials(url);
    return new Promise((resolve, reject) => {
      const child = spawn(argv[0], argv.slice(1), {
        env: { PATH: "/usr/bin:/bin", PGPASSWORD: password, PGCONNECT_TIMEOUT: "10" },
        stdio: ["ignore", "ignore", "pipe"],
        timeout: TOOL_TIMEOUT_MS,
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
      child.once("error", reject);
      child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${argv[0]} exited with ${code}: ${stderr.trim()}`))));
    });
  }

  const connectionArgs = (url: string) => {
    const { user, database } = credentials(url);
    return ["--host", options.server.host, "--port", String(options.server.port), "--username", user, "--dbname", database, "--no-password"];
  };

  return {
    type: "postgres",

    async create(ref) {
      const name = nameOf(ref);
      const password = randomBytes(24).toString("base64url");
      try {
        await admin.query(`CREATE ROLE ${ident(name)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION CONNECTION LIMIT 50 PASSWORD ${pg.escapeLiteral(password)}`);
        const { rows } = await admin.query<{ rolsuper: boolean }>(`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`);
        // A provision role that is not a superuser must be a member of the role to make it a database's owner.
        if (!rows[0]?.rolsuper) await admin.query(`GRANT ${ident(name)} TO current_user`);
        await admin.query(`CREATE DATABASE ${ident(name)} OWNER ${ident(name)}`);
        await admin.query(`REVOKE ALL ON DATABASE ${ident(name)} FROM PUBLIC`);
        await admin.query(`GRANT CONNECT, TEMPORARY ON DATABASE ${ident(name)} TO ${ident(name)}`);
      } catch (error) {
        await dropAll(name).catch(() => {});
        throw error;
      }
      const at = options.appEndpoint(options.server);
      return `postgresql://${name}:${password}@${at.host}:${at.port}/${name}`;
    },

    drop: (ref) => dropAll(nameOf(ref)),

    backup: (_ref, url, file) => tool(["/usr/bin/pg_dump", "--format=custom", "--file", file, ...connectionArgs(url)], url),

    // The app is stopped; other sessions (a console left open) would hold the locks --clean needs.
    restore: async (ref, url, file) => {
      await terminate(nameOf(ref));
      await tool(["/usr/bin/pg_restore", "--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", ...connectionArgs(url), file], url);
    },

    close: () => admin.end(),
  };
}
