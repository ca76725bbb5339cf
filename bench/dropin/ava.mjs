// The part of ava's API node-redlock's suite uses (test, test.before, t.is/not/assert/fail), for
// bench/dropin-suite.ts. Like ava, a file's tests run concurrently after its before hooks; each
// result goes to stdout as one JSON line.
import { isDeepStrictEqual } from "node:util";

const befores = [];
const tests = [];

function context(errors) {
  const check = (ok, message) => {
    if (!ok) errors.push(message);
  };
  return {
    is: (actual, expected, message = "is") =>
      check(Object.is(actual, expected), `${message} (${String(actual)} !== ${String(expected)})`),
    not: (actual, expected, message = "not") => check(!Object.is(actual, expected), message),
    deepEqual: (actual, expected, message = "deepEqual") =>
      check(isDeepStrictEqual(actual, expected), message),
    assert: (value, message = "assert") => check(Boolean(value), message),
    true: (value, message = "true") => check(value === true, message),
    pass: () => undefined,
    fail: (message = "fail") => check(false, message),
  };
}

async function runTest({ title, fn }) {
  const errors = [];
  try {
    await fn(context(errors));
  } catch (error) {
    errors.push(`threw: ${error?.stack ?? error}`);
  }
  // node-redlock's fail() helper calls t.fail after awaiting the attempts: let it land.
  await new Promise((resolve) => setTimeout(resolve, 100));
  process.stdout.write(`${JSON.stringify({ title, ok: errors.length === 0, errors })}\n`);
}

// As ava does, an unhandled rejection is reported, not a crash (the test it came from fails).
process.on("unhandledRejection", (error) => console.error("unhandled rejection:", error));

setImmediate(async () => {
  for (const fn of befores) await fn();
  await Promise.all(tests.map(runTest));
  process.exit(0);
});

export default function test(title, fn) {
  tests.push({ title, fn });
}
test.before = (fn) => befores.push(fn);
