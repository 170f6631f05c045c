// Stands in for zod's locales/index.js in the extension's bundle (esbuild.config.mjs): `z.locales` holds
// English only, the locale zod configures by default. The other 47 were compiled at every host start.
export { default as en } from "zod/v4/locales/en.js";
