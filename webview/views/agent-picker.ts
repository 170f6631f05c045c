import { html, nothing, type TemplateResult } from "lit-html";
import { live } from "lit-html/directives/live.js";

/** How the picker names a session's agent that no configuration defines (its folder has no config). */
export const unknownAgentLabel = (agentId: string) => `${agentId} (unknown agent)`;
/** What the closed picker shows for it: short enough for a 460 px sidebar; the full name is the tooltip and the option's text. */
export const unknownAgentShortLabel = (agentId: string) => `${agentId} (unknown)`;

/**
 * The Agent picker. A session of an agent no configuration defines (an orphaned agent
 * folder) shows its id, marked, instead of a blank box: the picker then offers it beside
 * the configured agents, so picking one of those is still a choice made knowingly.
 * Shown when there is a choice to make or an unknown agent to name.
 */
export function agentPicker(
  agents: { id: string; name: string }[],
  agentId: string | undefined,
  choose: (agentId: string) => void,
): TemplateResult | typeof nothing {
  // No agents at all is a config not heard yet, not an unknown agent.
  const orphan =
    agentId !== undefined && agents.length > 0 && !agents.some((a) => a.id === agentId) ? agentId : undefined;
  if (agents.length < 2 && !orphan) return nothing;
  const selected = agentId ?? agents[0]?.id;
  return html`<select
    class="agent-picker"
    aria-label="Agent"
    title=${orphan ? unknownAgentLabel(orphan) : "Agent"}
    .value=${live(selected ?? "")}
    @change=${(e: Event) => choose((e.currentTarget as HTMLSelectElement).value)}
  >
    ${orphan ? unknownOption(orphan) : nothing}
    ${agents.map((a) => html`<option value=${a.id} ?selected=${a.id === selected}>${a.name}</option>`)}
  </select>`;
}

/** The orphan's option: its text (and tooltip) the full name, what the closed picker shows the short one. */
const unknownOption = (agentId: string) =>
  html`<option
    value=${agentId}
    label=${unknownAgentShortLabel(agentId)}
    title=${unknownAgentLabel(agentId)}
    .text=${unknownAgentLabel(agentId)}
    selected
  ></option>`;
