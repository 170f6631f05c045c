export {
  fileAttachment,
  folderAttachment,
  problemsAttachment,
  selectionAttachment,
  terminalAttachment,
  withAttachments,
  type Problem,
} from "./attachments";
export { fuzzyFilter } from "./fuzzy";
