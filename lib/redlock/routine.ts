import { AsyncLocalStorage } from "node:async_hooks";

/** A running `using()` routine, inside the routine that called it, if any. */
export interface RoutineScope {
  readonly parent: RoutineScope | undefined;
}

/**
 * Each `using()` routine runs in its own async context: an acquire begun inside it, however deep in
 * its awaits, belongs to it, so a revoke of its lock cancels that acquire's wait (holdings.ts).
 */
const routineContext = new AsyncLocalStorage<RoutineScope>();

/** The `using()` routine the caller runs inside, if any. */
export const currentRoutine = (): RoutineScope | undefined => routineContext.getStore();

/** A new routine, nested in the caller's. */
export const newRoutine = (): RoutineScope => ({ parent: routineContext.getStore() });

/** Runs `body` inside `routine`'s async context. */
export const runInside = <T>(routine: RoutineScope, body: () => T): T =>
  routineContext.run(routine, body);

/** Whether `scope` is `routine` or a routine nested inside it. */
export function isWithin(scope: RoutineScope | undefined, routine: RoutineScope): boolean {
  for (let inside = scope; inside; inside = inside.parent) if (inside === routine) return true;
  return false;
}
