// A certificate authority made for one test run (openssl CLI), and a server certificate it signs for 127.0.0.1.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface LocalCa {
  /** The CA's certificate (PEM file): what DRAIN_CA_FILE names. */
  caFile: string;
  /** A certificate for 127.0.0.1 signed by the CA, and its key (PEM). */
  server: { key: string; cert: string };
  /** A self-signed certificate for 127.0.0.1 that the CA did not sign. */
  stranger: { key: string; cert: string };
  remove(): void;
}

export function createLocalCa(): LocalCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "slipway-ca-"));
  const at = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  const san = ["-addext", "subjectAltName=IP:127.0.0.1"];
  openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", at("ca.key"), "-out", at("ca.pem"), "-days", "2", "-subj", "/CN=Slipway test CA");
  openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", at("server.key"), "-out", at("server.csr"), "-subj", "/CN=127.0.0.1", ...san);
  openssl("x509", "-req", "-in", at("server.csr"), "-CA", at("ca.pem"), "-CAkey", at("ca.key"), "-CAcreateserial", "-out", at("server.pem"), "-days", "2", "-copy_extensions", "copy");
  openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", at("stranger.key"), "-out", at("stranger.pem"), "-days", "2", "-subj", "/CN=127.0.0.1", ...san);
  const read = (name: string) => fs.readFileSync(at(name), "utf8");
  return {
    caFile: at("ca.pem"),
    server: { key: read("server.key"), cert: read("server.pem") },
    stranger: { key: read("stranger.key"), cert: read("stranger.pem") },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
