import { expect, it, vi } from "vitest";
import {
  ExecutionError,
  isExecutionError,
  isRedlockError,
  isResourceLockedError,
  ResourceLockedError,
} from "@redlock-console/redlock";

it("the error guards recognise errors from another copy of the library, where instanceof fails", async () => {
  vi.resetModules();
  const other = await import("@redlock-console/redlock");
  const executionError = new other.ExecutionError("no quorum", []);
  const lockedError = new other.ResourceLockedError("held");
  expect(executionError instanceof ExecutionError).toBe(false);
  expect(lockedError instanceof ResourceLockedError).toBe(false);
  expect([isExecutionError(executionError), isRedlockError(executionError)]).toEqual([true, true]);
  expect([isResourceLockedError(lockedError), isExecutionError(lockedError)]).toEqual([
    true,
    false,
  ]);
  expect(isRedlockError(new other.NodeTimeoutError("127.0.0.1:6379", 100))).toBe(true);
});

it("the error guards refuse other errors", () => {
  const plain = new Error("no quorum");
  expect([isExecutionError(plain), isRedlockError(plain), isResourceLockedError(plain)]).toEqual([
    false,
    false,
    false,
  ]);
  expect(isExecutionError(Object.assign(new Error("x"), { name: "ExecutionError" }))).toBe(false);
});
