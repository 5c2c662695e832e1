/**
 * Files renumbered after they shipped, old name -> new name. A database that applied a file
 * under its old name has its record renamed before anything is compared, so the file is not
 * applied a second time; the contents (and so the checksum) of a renamed file never change.
 *
 * 0150 was added after 0402 had shipped: databases upgraded across that release applied it
 * last, fresh ones applied it fourth. It now sits where it was really added.
 */
export const MIGRATION_RENAMES: ReadonlyMap<string, string> = new Map([
  ['0150_identity_delivery_reset_handoffs.sql', '0403_identity_delivery_reset_handoffs.sql'],
]);
