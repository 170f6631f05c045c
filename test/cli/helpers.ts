// The CLI tests' helpers live in test/support/cli.ts (the agent tests use them too): one home for shared test helpers.
export * from "../support/cli";
