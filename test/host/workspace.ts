// What the Node-side driver seeded (test/e2e/host-workspace.ts), passed through the
// extension host's environment.
import type { HostWorkspaceInfo } from "../support/host-workspace";

export function hostWorkspace(): HostWorkspaceInfo {
  const text = process.env.DOWNCITY_HOST_WORKSPACE;
  if (!text) throw new Error("DOWNCITY_HOST_WORKSPACE is not set: run these through test/e2e/host-tests.test.ts");
  return JSON.parse(text) as HostWorkspaceInfo;
}
