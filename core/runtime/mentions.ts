// What hosts use of core/mentions (the chat's @-mentions): attachments built from what the editor resolved.
export {
  fileAttachment,
  folderAttachment,
  fuzzyFilter,
  problemsAttachment,
  selectionAttachment,
  terminalAttachment,
  withAttachments,
  type Problem,
} from "../mentions";
