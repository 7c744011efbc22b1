// Wire shapes of the contact import routes.
import * as z from 'zod';

const timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with milliseconds' });

/** Errors a finished import keeps: the first ones, in row order. */
export const MAX_REPORTED_ERRORS = 100;

export const startImportBody = z
  .object({
    object_key: z.string().min(1).max(512).meta({ description: 'The key POST /v1/uploads answered: a CSV with a header row and an `email` column' }),
    list_id: z.string().min(1).max(64).optional().meta({ description: 'A static list of the account every imported contact is added to' }),
  })
  .strict();

export type StartImportBody = z.infer<typeof startImportBody>;

export const importParams = z.object({ id: z.string().meta({ description: 'The import id, imp_…' }) });

export const importError = z.object({
  row: z.number().int().meta({ description: 'The row as a spreadsheet numbers it: the header is row 1' }),
  message: z.string(),
});

export const importView = z.object({
  id: z.string(),
  status: z.enum(['processing', 'completed', 'failed']),
  total: z.number().int().meta({ description: 'Data rows read so far (blank rows are not counted); all of them once completed' }),
  created: z.number().int().meta({ description: 'Contacts the import created' }),
  updated: z.number().int().meta({ description: 'Existing contacts it changed (values, or membership of list_id)' }),
  skipped: z.number().int().meta({ description: 'Rows that changed nothing: rows with an error, and rows equal to the contact as stored' }),
  errors: z.array(importError).meta({ description: `The first ${MAX_REPORTED_ERRORS} problems, by row; a file the import cannot read at all fails with one` }),
  created_at: timestamp,
  completed_at: timestamp.nullable().meta({ description: 'When it completed or failed; null while processing' }),
});

export type ImportView = z.infer<typeof importView>;
export type ImportError = z.infer<typeof importError>;

/** The answer to POST /v1/contacts/import: the import runs in the background. */
export const startedImportView = importView.pick({ id: true, status: true });
