export { ProjectRules, DEFAULT_RULES_BUDGET } from "./project-rules";
export { ruleNames } from "./names";
export { touchedPaths } from "./touched";
