// Loads exported Gemini CLI policy files with Gemini CLI's own code
// (@google/gemini-cli-core, pinned in package.json) and reports, for each
// tool, the name Gemini CLI gives it and the decision its policy engine
// takes. export/harness_test.go compares that with the matrix.
//
// Usage: node gemini.mjs REQUEST.json RESULT.json
// REQUEST: [{"policy": FILE, "server": NAME, "tools": [TOOL, ...]}, ...]
// RESULT:  [{"errors": [TEXT, ...], "tools": {TOOL: {"name", "decision", "source"}}}, ...]
// The result goes to a file: the policy engine logs to stdout.
import fs from 'node:fs/promises';
import {
  ApprovalMode,
  PolicyEngine,
  USER_POLICY_TIER,
  createPolicyEngineConfig,
  formatPolicyError,
  generateValidName,
  loadPoliciesFromToml,
} from '@google/gemini-cli-core';

const [requestFile, resultFile] = process.argv.slice(2);
const request = JSON.parse(await fs.readFile(requestFile, 'utf8'));
const results = [];
for (const { policy, server, tools } of request) {
  // The loader on its own: every error and warning it reports for the file.
  const loaded = await loadPoliciesFromToml([policy], () => USER_POLICY_TIER);
  const errors = loaded.errors.map((e) => formatPolicyError(e));
  // The engine as Gemini CLI builds it: the file as a user policy (--policy),
  // Gemini's default policies included, an interactive session in the
  // default approval mode.
  const config = await createPolicyEngineConfig({ policyPaths: [policy] }, ApprovalMode.DEFAULT, undefined, true);
  const engine = new PolicyEngine(config);
  const out = {};
  for (const tool of tools) {
    // The name Gemini CLI registers an MCP tool under (DiscoveredMCPTool).
    const name = generateValidName(`${server}_${tool}`);
    const { decision, rule } = await engine.check({ name, args: {} }, server, undefined);
    out[tool] = { name, decision, source: rule?.source ?? '' };
  }
  results.push({ errors, tools: out });
}
await fs.writeFile(resultFile, JSON.stringify(results));
