// The Vercel AI SDK's own verdict on histories: safeValidateUIMessages, or its modelMessageSchema.
//
//   node validate.mjs HISTORIES.json [ui|model]
//
// HISTORIES.json holds an array of histories: each an array of UIMessage (ui, the default) or of ModelMessage
// (model, checked by z.array(modelMessageSchema), the schema the SDK exports for them). Prints one JSON array
// with an entry per history the SDK refuses: {"index": <its position>, "issues": <the zod issues, or the
// error's message>}. The test suite runs it on what the bridge writes (tests/bridges/test_vercel_sdk.py).
import { readFileSync } from "node:fs";
import { modelMessageSchema, safeValidateUIMessages } from "ai";
import { z } from "zod";

const [path, form = "ui"] = process.argv.slice(2);
const histories = JSON.parse(readFileSync(path, "utf8"));
const modelMessages = z.array(modelMessageSchema);
const refused = [];
for (const [index, messages] of histories.entries()) {
  if (form === "model") {
    const result = modelMessages.safeParse(messages);
    if (!result.success) refused.push({ index, issues: result.error.issues });
    continue;
  }
  const result = await safeValidateUIMessages({ messages });
  if (!result.success) {
    const cause = result.error.cause;
    refused.push({ index, issues: cause?.issues ?? String(cause ?? result.error.message) });
  }
}
console.log(JSON.stringify(refused));
