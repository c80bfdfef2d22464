// The Vercel AI SDK's own verdict on UIMessage histories: safeValidateUIMessages on each.
//
//   node validate.mjs HISTORIES.json
//
// HISTORIES.json holds an array of histories (each an array of UIMessage). Prints one JSON array with an entry
// per history the SDK refuses: {"index": <its position>, "issues": <the zod issues, or the error's message>}.
// The test suite runs it on what the bridge writes (tests/bridges/test_vercel_sdk.py).
import { readFileSync } from "node:fs";
import { safeValidateUIMessages } from "ai";

const histories = JSON.parse(readFileSync(process.argv[2], "utf8"));
const refused = [];
for (const [index, messages] of histories.entries()) {
  const result = await safeValidateUIMessages({ messages });
  if (!result.success) {
    const cause = result.error.cause;
    refused.push({ index, issues: cause?.issues ?? String(cause ?? result.error.message) });
  }
}
console.log(JSON.stringify(refused));
