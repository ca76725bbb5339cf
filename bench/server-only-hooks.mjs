/**
 * Module resolve hook for the console scenarios: `server-only` throws outside a React Server build
 * (its default export condition), and the benchmark runs the console's server code in plain Node.
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === "server-only")
    return { url: "data:text/javascript,export {};", shortCircuit: true };
  return nextResolve(specifier, context);
}
