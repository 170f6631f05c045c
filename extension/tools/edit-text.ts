import { applyEdits, type AppliedEdit } from "../../core/tools/edits";
import type { TextEditParam } from "../../core/tools/definitions";

/**
 * The new text of an edit_file call against the editor's text, by the core's edit rules.
 * TODO(seams): switch to the core's pure edit step (matching, CRLF, BOM) once it lands.
 */
export function editedText(original: string, edits: readonly TextEditParam[], label: string): { text: string; applied: AppliedEdit[] } {
  return applyEdits(original, edits, label);
}
