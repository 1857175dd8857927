// Loads exported Codex config files with Codex itself (@openai/codex,
// pinned in package.json): for each, `codex mcp get SERVER --json` with
// CODEX_HOME a fresh folder holding the file plus a `command` line for the
// server (the export writes tool policy only). export/harness_test.go
// compares enabled_tools and disabled_tools with the matrix.
//
// Usage: node codex.mjs REQUEST.json RESULT.json
// REQUEST: [{"config": FILE, "server": NAME}, ...]
// RESULT:  [{"status": EXIT, "stdout": TEXT, "stderr": TEXT}, ...]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const codex = require.resolve('@openai/codex/bin/codex.js');

const [requestFile, resultFile] = process.argv.slice(2);
const request = JSON.parse(await fs.readFile(requestFile, 'utf8'));
const results = [];
for (const { config, server } of request) {
  const header = `[mcp_servers.${server}]`;
  const lines = (await fs.readFile(config, 'utf8')).split('\n');
  const at = lines.indexOf(header);
  if (at < 0 || lines.lastIndexOf(header) !== at) {
    results.push({ status: -1, stdout: '', stderr: `want one ${header} line in ${config}` });
    continue;
  }
  lines.splice(at + 1, 0, 'command = "hcp-rego-harness-test-server"');
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'codex-home-'));
  await fs.writeFile(path.join(home, 'config.toml'), lines.join('\n'));
  const run = spawnSync(process.execPath, [codex, 'mcp', 'get', server, '--json'], {
    env: { ...process.env, CODEX_HOME: home },
    encoding: 'utf8',
    timeout: 60000,
  });
  results.push({ status: run.status ?? -1, stdout: run.stdout ?? '', stderr: (run.stderr ?? '') + (run.error ? String(run.error) : '') });
  await fs.rm(home, { recursive: true, force: true });
}
await fs.writeFile(resultFile, JSON.stringify(results));
