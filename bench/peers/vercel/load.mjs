// The Vercel AI SDK's own load of a stored UIMessage history: JSON.parse, then validateUIMessages.
//
//   node load.mjs HISTORY.json [NUMBER]
//
// Reads the file once, runs the load once to warm the JIT, then times NUMBER loads (default 1) on the process's
// CPU clock (process.cpuUsage, user + system, as Python's time.process_time) and prints one JSON object:
// {"ai": <the SDK's version>, "messages": <count>, "seconds": <CPU seconds per load>}.
// validateUIMessages is what the SDK documents for messages a server reads back from storage before it hands
// them to convertToModelMessages; it checks every part against the SDK's zod schemas and throws on a bad one.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { validateUIMessages } from "ai";

const [path, number = "1"] = process.argv.slice(2);
const text = readFileSync(path, "utf8");
const load = async () => validateUIMessages({ messages: JSON.parse(text) });

const messages = await load();
const count = Number(number);
const start = process.cpuUsage();
for (let i = 0; i < count; i += 1) {
  await load();
}
const used = process.cpuUsage(start);
const { version } = createRequire(import.meta.url)("ai/package.json");
console.log(JSON.stringify({ ai: version, messages: messages.length, seconds: (used.user + used.system) / 1e6 / count }));
