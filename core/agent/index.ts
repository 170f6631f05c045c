export {
  settingsForPolicy,
  type ApprovalSettings,
  ApprovalPolicy,
  type ApprovalRequest,
  type ApproveFn,
  SessionApprovals,
} from "./approval";
export { type RetryPolicy } from "./retry";
export { type CallSettings, type TurnOutcome, Agent } from "./agent";
