export {
  ProjectRules,
  DEFAULT_RULES_BUDGET,
  CHARS_PER_TOKEN,
  folderChain,
  type LoadedRules,
  type ProjectRulesOptions,
} from "./project-rules";
export { ruleNames, KNOWN_EXTRAS, ALWAYS } from "./names";
export { touchedPaths, relativeInside } from "./touched";
export { RULES_FILE_CAP } from "./read";
