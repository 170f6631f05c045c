// Lets unit tests of extension glue import `vscode` (tests compile to CommonJS): resolves
// it to the narrow fake in this folder. Real behaviour is proven in code-server by the
// in-host tests.
const Module = require("node:module");
const fake = require.resolve("./index.ts");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "vscode" ? fake : resolve.call(this, request, ...rest);
};
