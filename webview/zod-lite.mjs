// The webview bundle's `zod` (esbuild alias): the same schemas core/protocol uses,
// without the locale tables and JSON-Schema tooling a namespace import drags in
// (~450 KB minified). English messages only. Not type-checked: core/protocol is
// checked against the real package.
import {
  array,
  boolean,
  custom,
  discriminatedUnion,
  enum as enum_,
  literal,
  looseObject,
  number,
  object,
  record,
  string,
  tuple,
  union,
  unknown,
} from "../node_modules/zod/v4/classic/schemas.js";
import { config } from "../node_modules/zod/v4/core/core.js";
import { prettifyError } from "../node_modules/zod/v4/core/errors.js";
import en from "../node_modules/zod/v4/locales/en.js";

config(en());

export const z = {
  array,
  boolean,
  custom,
  discriminatedUnion,
  enum: enum_,
  literal,
  looseObject,
  number,
  object,
  record,
  string,
  tuple,
  union,
  unknown,
  config,
  prettifyError,
};
