// A tiny app for database tests, zipped with real drivers copied from this repository's node_modules (pure JS
// `pg`, and better-sqlite3 built for this Node): nothing to install, so the build runs offline. It answers
//   /pg?env=KEY&add=v       rows of table items in the PostgreSQL database at $KEY (after adding v)
//   /sqlite?env=KEY&add=v   the same in the SQLite database at $KEY
//   /connect?host=h&port=p  whether a TCP connection from inside the sandbox opens
//   /link?name=n&target=t   replaces /data/n with a symbolic link to t (what a hostile app could do)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { zipFolder } from "../helpers/apps.ts";

const ROOT = path.resolve(import.meta.dirname, "../../node_modules");

const SERVER = `
const http = require("node:http");
const net = require("node:net");
async function pgRows(url, add) {
  const { Client } = require("pg");
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query("CREATE TABLE IF NOT EXISTS items (v text)");
    if (add) await client.query("INSERT INTO items (v) VALUES ($1)", [add]);
    return (await client.query("SELECT v FROM items ORDER BY v")).rows.map((r) => r.v);
  } finally {
    await client.end();
  }
}
function sqliteRows(url, add) {
  const Database = require("better-sqlite3");
  const db = new Database(url.replace(/^file:/, ""));
  try {
    db.exec("CREATE TABLE IF NOT EXISTS items (v text)");
    if (add) db.prepare("INSERT INTO items (v) VALUES (?)").run(add);
    return db.prepare("SELECT v FROM items ORDER BY v").all().map((r) => r.v);
  } finally {
    db.close();
  }
}
function connect(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: Number(port), timeout: 3000 });
    socket.once("connect", () => { socket.destroy(); resolve("open"); });
    socket.once("timeout", () => { socket.destroy(); resolve("timeout"); });
    socket.once("error", (e) => resolve(e.code || e.message));
  });
}
http.createServer(async (req, res) => {
  const u = new URL(req.url, "http://app");
  const q = (k) => u.searchParams.get(k);
  try {
    let body;
    if (u.pathname === "/pg") body = await pgRows(process.env[q("env") || "DATABASE_URL"], q("add"));
    else if (u.pathname === "/sqlite") body = sqliteRows(process.env[q("env") || "DATABASE_URL"], q("add"));
    else if (u.pathname === "/connect") body = await connect(q("host"), q("port"));
    else if (u.pathname === "/link") {
      require("node:fs").rmSync("/data/" + q("name"), { force: true });
      require("node:fs").symlinkSync(q("target"), "/data/" + q("name"));
      body = "linked";
    } else if (u.pathname === "/env") body = Object.keys(process.env).filter((k) => k.startsWith("DATABASE_URL")).sort();
    else body = "ok";
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(body));
  } catch (error) {
    res.statusCode = 500;
    res.end(JSON.stringify({ error: error.message }));
  }
}).listen(Number(process.env.PORT));
`;

function copyModule(name: string, into: string, seen: Set<string>): void {
  if (seen.has(name)) return;
  seen.add(name);
  const from = path.join(ROOT, name);
  if (!fs.existsSync(from)) return; // an optional dependency this machine lacks
  const pkg = JSON.parse(fs.readFileSync(path.join(from, "package.json"), "utf8"));
  fs.cpSync(from, path.join(into, name), {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(from, src);
      return !/(^|[\\/])(deps|src|test|docs|obj|obj\.target)([\\/]|$)/.test(rel) && !/\.(md|a|o)$/.test(rel) && !rel.includes("test_extension");
    },
  });
  for (const dep of Object.keys(pkg.dependencies ?? {})) if (dep !== "prebuild-install") copyModule(dep, into, seen);
}

let cached: Buffer | undefined;

export async function dbAppZip(): Promise<Buffer> {
  if (cached) return cached;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "db-app-"));
  try {
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "db-app", version: "1.0.0", private: true }));
    fs.writeFileSync(path.join(dir, "server.js"), SERVER);
    const modules = path.join(dir, "node_modules");
    const seen = new Set<string>();
    copyModule("pg", modules, seen);
    copyModule("better-sqlite3", modules, seen);
    cached = await zipFolder(dir);
    return cached;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
