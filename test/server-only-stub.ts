// `server-only` throws when imported outside a React Server environment; tests run lib code in plain Node.
export {};
